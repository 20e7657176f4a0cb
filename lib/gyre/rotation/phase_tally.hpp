// gyre/rotation/phase_tally.hpp — the control plane of a job without barriers: adds up the phases workers report as they finish them.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "gyre/rotation/rotation_driver.hpp"
#include "gyre/runtime/mailbox.hpp"
#include "gyre/runtime/receiver.hpp"

namespace gyre::rotation {

// Where the RotationDriver starts each phase and waits for it, in Harp's no-sync model every
// worker runs its phases back to back and reports each one (kPhaseDone) as it ends it. The
// tally keeps the reports of phases not yet complete, and hands each phase, once every worker
// has reported it, to the same PhasePolicy a driver runs: so epoch reports, evaluation and
// divergence checks are the driver's. The workers follow the policy's rule for which phase
// comes next on their own; the policy's answer names the kind of the next phase.
class PhaseTally {
 public:
  // `mailbox` is the scheduler member's one receive path.
  PhaseTally(runtime::Mailbox& mailbox, std::vector<int> workers, std::chrono::milliseconds timeout);

  // Returns once the policy has stopped (every worker has then reported its last phase). A
  // worker's failure notice, a report out of order, no report from anyone within the timeout,
  // or the policy throwing: tells every worker and throws runtime::JobFailed. A phase's seconds
  // run from the previous phase's completion, so they add up to the job's wall time.
  void run(const PhasePolicy& policy);

 private:
  std::vector<int> workers_;
  runtime::Receiver receiver_;  // tells the workers of any failure
};

}  // namespace gyre::rotation
