// gyre/ps/step_loop.hpp — the step loop an engine's worker runs (schedule, push, barrier, stop), shared by the parameter server and the peer-to-peer engine.
#pragma once

#include <exception>
#include <numeric>
#include <string>
#include <vector>

#include "gyre/net/group.hpp"
#include "gyre/runtime/failure.hpp"

namespace gyre::ps {

// Runs `handle` (a PsWorker or a p2p::P2pPeer: index(), clock(), push(), barrier(), stop())
// through `program`'s steps until its stop says so, then stops it. The program's own error (or a
// bad reply) fails the job: across processes nothing closes this rank's links, so `others` are
// told, or they would wait for this rank until their timeouts. `who` opens the failure's text.
template <class Handle, class Program, class Key>
void run_steps(Handle& handle, const Program& program, Key keys, net::Group& group, const std::vector<int>& others,
               const std::string& who) {
  std::vector<Key> every(static_cast<std::size_t>(keys));
  std::iota(every.begin(), every.end(), Key{0});
  try {
    for (;;) {
      const auto scheduled = program.schedule ? program.schedule(handle.index(), handle.clock()) : every;
      for (const auto& [k, delta] : program.push(handle, scheduled)) handle.push(k, delta);
      handle.barrier();
      if (program.stop(handle)) break;
    }
    handle.stop();
  } catch (const std::exception& e) {
    if (runtime::is_job_failure(e)) throw;  // the job failed elsewhere, and everyone has been told
    runtime::fail_job(group, others,
                      runtime::JobFailed(group.rank(), runtime::FailureCause::kError,
                                         who + " " + std::to_string(group.rank()) + ": " + e.what()));
  }
}

}  // namespace gyre::ps
