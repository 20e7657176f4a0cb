// gyre/pipeline/phase_follower.cpp — the phase loop of a worker without a flow graph.
#include "gyre/pipeline/phase_follower.hpp"

#include <string>

#include "gyre/scheduler/rotation_driver.hpp"
#include "gyre/wire/codec.hpp"

namespace gyre::pipeline {

void follow_phases(net::Inbox& inbox, int scheduler_rank, std::chrono::milliseconds timeout, const RunPhase& run) {
  const auto me = "worker " + std::to_string(inbox.group().rank());
  const auto accept = [&](const net::Message& m) {
    return m.sender == scheduler_rank && (m.type == scheduler::kPhaseGo || m.type == scheduler::kStop);
  };
  for (std::uint64_t next = 0;; ++next) {
    std::optional<net::Message> m;
    try {
      m = inbox.receive(accept, net::Clock::now() + timeout);
    } catch (const net::GroupClosed& e) {
      throw scheduler::JobFailed(e.what());
    }
    if (!m) throw scheduler::JobFailed(me + ": no word from the scheduler within " + std::to_string(timeout.count()) + " ms");
    if (m->type == scheduler::kStop) return;
    scheduler::PhaseSums sums;
    try {
      const auto go = scheduler::decode_phase_go(*m, scheduler_rank, next);
      sums = run(go.phase, static_cast<scheduler::PhaseKind>(go.kind));
    } catch (const scheduler::JobFailed&) {
      throw;
    } catch (const std::exception& e) {
      scheduler::fail_job(inbox.group(), {scheduler_rank}, me + ": " + e.what());
    }
    net::Message done;
    done.type = scheduler::kPhaseDone;
    done.meta = wire::encode(scheduler::PhaseDone{next, sums});
    inbox.group().send(scheduler_rank, std::move(done));
  }
}

}  // namespace gyre::pipeline
