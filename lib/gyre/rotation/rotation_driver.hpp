// gyre/rotation/rotation_driver.hpp — the control plane of a rotation job: starts phases, gathers results.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "gyre/net/group.hpp"
#include "gyre/rotation/rotation_kernel.hpp"
#include "gyre/rotation/protocol.hpp"
#include "gyre/runtime/failure.hpp"
#include "gyre/runtime/mailbox.hpp"
#include "gyre/runtime/receiver.hpp"

namespace gyre::rotation {

// The phase messages as their receivers check them before acting on them; both throw
// std::runtime_error naming the sender. A worker takes a kPhaseGo only from `scheduler_rank`,
// for the phase after the last one it started (`expected`), of a known kind, with a payload of
// at most kMaxPhasePayload bytes. The driver takes
// a kPhaseDone only for the phase it is running (`expected`).
PhaseGo decode_phase_go(const net::Message& m, int scheduler_rank, std::uint64_t expected);
PhaseDone decode_phase_done(const net::Message& m, std::uint64_t expected);
// A worker's kPhaseDone for `phase`; std::length_error past kMaxPhaseSums.
net::Message encode_phase_done(std::uint64_t phase, const PhaseSums& sums);
// Adds `report` (from rank `from`) into `total`, element by element; the first report sizes the
// total. std::runtime_error naming `from` when its length differs from the others'.
void add_phase_sums(PhaseSums& total, bool first, const PhaseSums& report, int from, std::uint64_t phase);

// The policy's answer, on the scheduler's member (`group`). A policy that throws (a diverged
// model) fails the job at `workers` with "scheduler: " and its text, naming the scheduler.
std::optional<PhaseKind> ask_policy(const PhasePolicy& policy, const PhaseResult* last, net::Group& group,
                                    const std::vector<int>& workers);

// Runs on the scheduler's rank (its own thread in the embedded default). Phases are barriers:
// phase k+1 starts when every worker has reported phase k, which is what makes "every
// (worker, block) pair once per epoch" checkable and epoch metrics exact.
class RotationDriver {
 public:
  // `mailbox` is the scheduler member's one receive path (runtime::Member::mailbox).
  RotationDriver(runtime::Mailbox& mailbox, std::vector<int> workers, std::chrono::milliseconds timeout);

  // Returns after sending kStop to every worker. On a worker's failure, or when no report
  // arrives within the timeout, sends a failure notice to every worker and throws runtime::JobFailed.
  void run(const PhasePolicy& policy, const PhasePayload& payload = {});

 private:
  net::Group& group_;
  std::vector<int> workers_;
  runtime::Receiver receiver_;  // tells the workers of any failure
};

}  // namespace gyre::rotation
