// gyre/rotation/rotation_driver.cpp — phase loop of the control plane.
#include "gyre/rotation/rotation_driver.hpp"

#include <algorithm>
#include <string>

#include "gyre/wire/body.hpp"
#include "gyre/wire/codec.hpp"

namespace gyre::rotation {

RotationDriver::RotationDriver(runtime::Mailbox& mailbox, std::vector<int> workers, std::chrono::milliseconds timeout)
    : group_(mailbox.group()), workers_(std::move(workers)), receiver_(mailbox, "scheduler", timeout, workers_, runtime::Receiver::Role::kHub) {}

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
  const auto record = decode_from<PhaseDoneRecord>(m, "phase report");
  const std::string from = "rank " + std::to_string(m.sender);
  if (record.phase != expected)
    throw std::runtime_error(from + " reported phase " + std::to_string(record.phase) + " during phase " +
                             std::to_string(expected));
  wire::Reader body(m.body.bytes(), from + "'s report of phase " + std::to_string(record.phase) + ": ");
  return PhaseDone{record.phase, body.get_rest<double>("sums", kMaxPhaseSums)};
}

net::Message encode_phase_done(std::uint64_t phase, const PhaseSums& sums) {
  if (sums.size() > kMaxPhaseSums)
    throw std::length_error("a phase report of " + std::to_string(sums.size()) + " sums, over the " +
                            std::to_string(kMaxPhaseSums));
  net::Message m;
  m.type = kPhaseDone;
  m.meta = wire::encode(PhaseDoneRecord{phase});
  wire::Writer body(sums.size() * sizeof(double));
  body.put_array(std::span<const double>(sums));
  m.body = body.finish();
  return m;
}

void add_phase_sums(PhaseSums& total, bool first, const PhaseSums& report, int from, std::uint64_t phase) {
  if (first) total.assign(report.size(), 0.0);
  if (report.size() != total.size())
    throw std::runtime_error("rank " + std::to_string(from) + " reported " + std::to_string(report.size()) +
                             " sums for phase " + std::to_string(phase) + ", the workers before it " +
                             std::to_string(total.size()));
  for (std::size_t i = 0; i < total.size(); ++i) total[i] += report[i];
}

std::optional<PhaseKind> ask_policy(const PhasePolicy& policy, const PhaseResult* last, net::Group& group,
                                    const std::vector<int>& workers) {
  try {
    return policy(last);
  } catch (const std::exception& e) {
    // The workers wait: they are told. The policy's own exception rides along, for an embedder
    // in this process (run() rethrows it).
    const auto error = std::current_exception();
    runtime::fail_job(group, workers,
                      runtime::JobFailed(group.rank(), runtime::FailureCause::kError, std::string("scheduler: ") + e.what(),
                                         runtime::is_own_type(error) ? error : nullptr));
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
        receiver_.fail(group_.rank(), runtime::FailureCause::kError, e.what());
      }
      if (bytes.size() > kMaxPhasePayload)
        receiver_.fail(group_.rank(), runtime::FailureCause::kError,
             "the payload of phase " + std::to_string(phase) + " has " + std::to_string(bytes.size()) +
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
    const auto missing = [&] {
      return runtime::silence_of("report of phase " + std::to_string(phase), workers_,
                                 [&](std::size_t i) { return !reports[i]; });
    };
    while (reported < workers_.size()) {
      // The rotation's messages, whatever their type: a worker sends the scheduler reports only.
      const auto m = receiver_.receive([](const net::Message& x) { return wire::channels::kRotation.contains(x.type); }, missing);
      const int from = m.sender;
      const auto bad = runtime::FailureCause::kBadMessage;
      if (m.type != kPhaseDone)
        receiver_.fail(from, bad, "unexpected message type " + std::to_string(m.type) + " from rank " + std::to_string(from));
      const auto it = std::find(workers_.begin(), workers_.end(), from);
      if (it == workers_.end())
        receiver_.fail(from, bad, "rank " + std::to_string(from) + ", not a worker, reported phase " + std::to_string(phase));
      auto& slot = reports[static_cast<std::size_t>(it - workers_.begin())];
      if (slot) receiver_.fail(from, bad, "rank " + std::to_string(from) + " reported phase " + std::to_string(phase) + " twice");
      try {
        slot = decode_phase_done(m, phase).sums;
      } catch (const std::runtime_error& e) {
        receiver_.fail(from, bad, e.what());
      }
      ++reported;
    }

    PhaseResult result;
    result.phase = phase;
    result.kind = *kind;
    for (std::size_t i = 0; i < reports.size(); ++i) try {  // in rank order: reproducible sums
        add_phase_sums(result.sums, i == 0, *reports[i], workers_[i], phase);
      } catch (const std::runtime_error& e) {
        receiver_.fail(workers_[i], runtime::FailureCause::kBadMessage, e.what());
      }
    result.seconds = std::chrono::duration<double>(net::Clock::now() - start).count();
    kind = ask_policy(policy, &result, group_, workers_);
  }
  for (int w : workers_) {
    net::Message m;
    m.type = kStop;
    group_.send(w, std::move(m));
  }
}

}  // namespace gyre::rotation
