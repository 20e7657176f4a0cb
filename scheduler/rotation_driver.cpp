// scheduler/rotation_driver.cpp — phase loop of the control plane.
#include "gyre/scheduler/rotation_driver.hpp"

#include <algorithm>
#include <string>

#include "gyre/wire/codec.hpp"

namespace gyre::scheduler {

RotationDriver::RotationDriver(net::Group& group, std::vector<int> workers, std::chrono::milliseconds timeout)
    : group_(group), workers_(std::move(workers)), timeout_(timeout) {}

void fail_job(net::Group& group, const std::vector<int>& ranks, const std::string& why) {
  for (int to : ranks) {
    net::Message m;
    m.type = kFailure;
    m.meta = wire::encode(Failure::from(why));
    try {
      group.send(to, std::move(m));
    } catch (const std::exception&) {
      // The peer may be the one that failed; the others still get told.
    }
  }
  throw JobFailed(why);
}

bool is_failure(const net::Message& m) { return m.type == kFailure; }

std::string failure_text(const net::Message& m) {
  try {
    return wire::decode<Failure>(m.meta).str();
  } catch (const wire::DecodeError& e) {
    return "rank " + std::to_string(m.sender) + " sent a malformed failure notice (" + e.what() + ")";
  }
}

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
  return go;
}

PhaseDone decode_phase_done(const net::Message& m, std::uint64_t expected) {
  const auto done = decode_from<PhaseDone>(m, "phase report");
  if (done.phase != expected)
    throw std::runtime_error("rank " + std::to_string(m.sender) + " reported phase " + std::to_string(done.phase) +
                             " during phase " + std::to_string(expected));
  return done;
}

void RotationDriver::fail(const std::string& why) { fail_job(group_, workers_, why); }

std::optional<PhaseKind> RotationDriver::ask(const PhasePolicy& policy, const PhaseResult* last) {
  try {
    return policy(last);
  } catch (const std::exception& e) {
    fail(std::string("scheduler: ") + e.what());  // the workers are waiting: tell them
  }
}

void RotationDriver::run(const PhasePolicy& policy) {
  std::optional<PhaseKind> kind = ask(policy, nullptr);
  for (std::uint64_t phase = 0; kind; ++phase) {
    const auto start = net::Clock::now();
    for (int w : workers_) {
      net::Message m;
      m.type = kPhaseGo;
      m.meta = wire::encode(PhaseGo{phase, static_cast<std::uint8_t>(*kind)});
      group_.send(w, std::move(m));
    }

    std::vector<std::optional<PhaseSums>> reports(workers_.size());
    std::size_t reported = 0;
    while (reported < workers_.size()) {
      std::optional<net::Message> m;
      try {
        m = group_.receive(net::Clock::now() + timeout_);
      } catch (const net::GroupClosed& e) {
        fail(std::string("scheduler: transport closed: ") + e.what());
      }
      if (!m) {
        std::string missing;
        for (std::size_t i = 0; i < workers_.size(); ++i)
          if (!reports[i]) missing += (missing.empty() ? "" : ",") + std::to_string(workers_[i]);
        fail("scheduler: no report of phase " + std::to_string(phase) + " from rank(s) " + missing + " within " +
             std::to_string(timeout_.count()) + " ms");
      }
      if (m->type == kFailure) fail(failure_text(*m));
      if (m->type != kPhaseDone) continue;  // nothing else is addressed to the scheduler
      const auto it = std::find(workers_.begin(), workers_.end(), m->sender);
      if (it == workers_.end())
        fail("scheduler: rank " + std::to_string(m->sender) + ", not a worker, reported phase " + std::to_string(phase));
      auto& slot = reports[static_cast<std::size_t>(it - workers_.begin())];
      if (slot) fail("scheduler: rank " + std::to_string(m->sender) + " reported phase " + std::to_string(phase) + " twice");
      try {
        slot = decode_phase_done(*m, phase).sums;
      } catch (const std::runtime_error& e) {
        fail(std::string("scheduler: ") + e.what());
      }
      ++reported;
    }

    PhaseResult result;
    result.phase = phase;
    result.kind = *kind;
    for (const auto& r : reports)
      for (std::size_t i = 0; i < kPhaseSums; ++i) result.sums[i] += (*r)[i];
    result.seconds = std::chrono::duration<double>(net::Clock::now() - start).count();
    kind = ask(policy, &result);
  }
  for (int w : workers_) {
    net::Message m;
    m.type = kStop;
    group_.send(w, std::move(m));
  }
}

}  // namespace gyre::scheduler
