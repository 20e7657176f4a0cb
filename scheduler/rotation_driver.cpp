// scheduler/rotation_driver.cpp — phase loop of the control plane.
#include "gyre/scheduler/rotation_driver.hpp"

#include <algorithm>
#include <string>

#include "gyre/wire/codec.hpp"

namespace gyre::scheduler {

RotationDriver::RotationDriver(runtime::Mailbox& mailbox, std::vector<int> workers, std::chrono::milliseconds timeout)
    : group_(mailbox.group()), mailbox_(mailbox), workers_(std::move(workers)), timeout_(timeout) {}

namespace {

// Decodes a fixed-size phase record, naming the sender when it does not decode.
template <class Record>
Record decode_from(const net::Message& m, const char* what) {
  try {
    return wire::decode<Record>(m.meta);
  } catch (const wire::DecodeError& e) {
    throw std::runtime_error("rank " + std::to_string(m.sender) + " sent a malformed " + what + " (" + e.what() + ")");
  }
}

}  // namespace

PhaseGo decode_phase_go(const net::Message& m, int scheduler_rank, std::uint64_t expected) {
  const std::string from = "rank " + std::to_string(m.sender);
  if (m.sender != scheduler_rank)
    throw std::runtime_error(from + " sent a phase start, but the scheduler is rank " + std::to_string(scheduler_rank));
  const auto go = decode_from<PhaseGo>(m, "phase start");
  if (go.phase != expected)
    throw std::runtime_error(from + " started phase " + std::to_string(go.phase) + " where phase " +
                             std::to_string(expected) + " comes next");
  if (go.kind != static_cast<std::uint8_t>(PhaseKind::kTrain) && go.kind != static_cast<std::uint8_t>(PhaseKind::kEvaluate))
    throw std::runtime_error(from + " started phase " + std::to_string(go.phase) + " of unknown kind " +
                             std::to_string(go.kind));
  if (m.body.size() > kMaxPhasePayload)
    throw std::runtime_error(from + " started phase " + std::to_string(go.phase) + " with a payload of " +
                             std::to_string(m.body.size()) + " bytes, over the " + std::to_string(kMaxPhasePayload));
  return go;
}

PhaseDone decode_phase_done(const net::Message& m, std::uint64_t expected) {
  const auto done = decode_from<PhaseDone>(m, "phase report");
  if (done.phase != expected)
    throw std::runtime_error("rank " + std::to_string(m.sender) + " reported phase " + std::to_string(done.phase) +
                             " during phase " + std::to_string(expected));
  return done;
}

void RotationDriver::fail(int rank, runtime::FailureCause cause, const std::string& why) {
  runtime::fail_job(group_, workers_, runtime::JobFailed(rank, cause, why));
}

std::optional<PhaseKind> ask_policy(const PhasePolicy& policy, const PhaseResult* last, net::Group& group,
                                    const std::vector<int>& workers) {
  try {
    return policy(last);
  } catch (const std::exception& e) {
    runtime::fail_job(group, workers,  // the workers wait
                      runtime::JobFailed(group.rank(), runtime::FailureCause::kError, std::string("scheduler: ") + e.what()));
  }
}

void RotationDriver::run(const PhasePolicy& policy, const PhasePayload& payload) {
  std::optional<PhaseKind> kind = ask_policy(policy, nullptr, group_, workers_);
  for (std::uint64_t phase = 0; kind; ++phase) {
    const auto start = net::Clock::now();
    std::vector<std::byte> bytes;
    if (payload) {
      try {
        bytes = payload(phase, *kind);
      } catch (const std::exception& e) {
        fail(group_.rank(), runtime::FailureCause::kError, std::string("scheduler: ") + e.what());
      }
      if (bytes.size() > kMaxPhasePayload)
        fail(group_.rank(), runtime::FailureCause::kError,
             "scheduler: the payload of phase " + std::to_string(phase) + " has " + std::to_string(bytes.size()) +
                 " bytes, over the " + std::to_string(kMaxPhasePayload));
    }
    for (int w : workers_) {
      net::Message m;
      m.type = kPhaseGo;
      m.meta = wire::encode(PhaseGo{phase, static_cast<std::uint8_t>(*kind)});
      m.body = Buffer(bytes.size());
      std::copy(bytes.begin(), bytes.end(), m.body.data());
      group_.send(w, std::move(m));
    }

    std::vector<std::optional<PhaseSums>> reports(workers_.size());
    std::size_t reported = 0;
    while (reported < workers_.size()) {
      std::optional<net::Message> m;
      try {
        m = mailbox_.receive([](const net::Message&) { return true; }, net::Clock::now() + timeout_);
      } catch (const runtime::JobFailed& e) {
        runtime::fail_job(group_, workers_, e);  // a worker's notice: pass it on to the others
      } catch (const net::GroupClosed& e) {
        fail(-1, runtime::FailureCause::kPeerLost, std::string("scheduler: transport closed: ") + e.what());
      }
      if (!m) {
        std::string missing;
        int first_missing = -1;
        for (std::size_t i = 0; i < workers_.size(); ++i)
          if (!reports[i]) {
            missing += (missing.empty() ? "" : ",") + std::to_string(workers_[i]);
            if (first_missing < 0) first_missing = workers_[i];
          }
        fail(first_missing, runtime::FailureCause::kTimeout,
             "scheduler: no report of phase " + std::to_string(phase) + " from rank(s) " + missing + " within " +
                 std::to_string(timeout_.count()) + " ms");
      }
      if (m->type != kPhaseDone) continue;  // nothing else is addressed to the scheduler
      const int from = m->sender;
      const auto bad = runtime::FailureCause::kBadMessage;
      const auto it = std::find(workers_.begin(), workers_.end(), from);
      if (it == workers_.end())
        fail(from, bad, "scheduler: rank " + std::to_string(from) + ", not a worker, reported phase " + std::to_string(phase));
      auto& slot = reports[static_cast<std::size_t>(it - workers_.begin())];
      if (slot) fail(from, bad, "scheduler: rank " + std::to_string(from) + " reported phase " + std::to_string(phase) + " twice");
      try {
        slot = decode_phase_done(*m, phase).sums;
      } catch (const std::runtime_error& e) {
        fail(from, bad, std::string("scheduler: ") + e.what());
      }
      ++reported;
    }

    PhaseResult result;
    result.phase = phase;
    result.kind = *kind;
    for (const auto& r : reports)
      for (std::size_t i = 0; i < kPhaseSums; ++i) result.sums[i] += (*r)[i];
    result.seconds = std::chrono::duration<double>(net::Clock::now() - start).count();
    kind = ask_policy(policy, &result, group_, workers_);
  }
  for (int w : workers_) {
    net::Message m;
    m.type = kStop;
    group_.send(w, std::move(m));
  }
}

}  // namespace gyre::scheduler
