// gyre/rotation/phase_follower.cpp — the phase loop of a worker without a flow graph.
#include "gyre/rotation/phase_follower.hpp"

#include <string>

#include "gyre/rotation/rotation_driver.hpp"
#include "gyre/runtime/receiver.hpp"
#include "gyre/wire/codec.hpp"

namespace gyre::rotation {

void follow_phases(runtime::Mailbox& inbox, int scheduler_rank, std::chrono::milliseconds timeout, const RunPhase& run) {
  const int rank = inbox.group().rank();
  const auto me = "worker " + std::to_string(rank);
  const runtime::Receiver receiver(inbox, me, timeout, {scheduler_rank});
  const auto accept = [&](const net::Message& m) {
    return m.sender == scheduler_rank && (m.type == kPhaseGo || m.type == kStop);
  };
  const auto silent = [&] { return runtime::Silence{scheduler_rank, "word from the scheduler"}; };
  for (std::uint64_t next = 0;; ++next) {
    const net::Message m = receiver.receive(accept, silent);
    if (m.type == kStop) return;
    PhaseSums sums;
    try {
      const auto go = decode_phase_go(m, scheduler_rank, next);
      sums = run(go.phase, static_cast<PhaseKind>(go.kind), m.body.bytes());
    } catch (const runtime::JobFailed&) {
      throw;
    } catch (const std::exception& e) {
      receiver.fail(runtime::JobFailed(rank, runtime::FailureCause::kError, me + ": " + e.what(),
                                       runtime::is_own_type(std::current_exception()) ? std::current_exception() : nullptr));
    }
    inbox.group().send(scheduler_rank, encode_phase_done(next, sums));
  }
}

}  // namespace gyre::rotation
