// gyre/ps/ps_job.hpp — a parameter-server job: the schedule, push, pull, barrier and stop verbs run by workers and servers.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "gyre/base/export.hpp"
#include "gyre/ps/barrier.hpp"
#include "gyre/ps/ps_layout.hpp"
#include "gyre/ps/worker.hpp"
#include "gyre/runtime/job.hpp"

namespace gyre::pipeline::ps {

// The app's side (worker.hpp): the same program runs peer to peer (p2p_job.hpp).
using PsProgram = Program;

// What a worker did, sent to the servers with its stop (so process 0 can report on every worker).
struct PsWorkerReport {
  std::int64_t steps = 0;
  std::chrono::nanoseconds held{0};  // at the barrier
  std::uint64_t reads = 0, cache_hits = 0, barrier_queries = 0;
};

struct PsJobOptions {
  scheduler::Barrier barrier;  // a BarrierSpec, or an embedder's BarrierRule with its sampling
  std::chrono::milliseconds timeout{std::chrono::minutes(10)};
  std::uint64_t seed = 1;
  // For barriers without a staleness bound (ASP, pBSP; pSSP's sample only bounds the sampled
  // peers): how many clocks a cached value may be reused before it is read again.
  std::int64_t cache_clocks = 0;
  // Whether the servers fold each step's pushes in worker order once all have come
  // (PsServerOptions::ordered): every worker's step then reads the same sums, and a run repeats
  // bit for bit. Unset: on under BSP (textbook BSP), off under any looser rule (folded as they
  // arrive). Off under BSP lets a fast worker's pushes in early, in arrival order.
  std::optional<bool> ordered_folds;
};

struct PsJobResult {
  std::vector<Value> values;  // by key, as the servers hold them at the end
  std::vector<PsWorkerReport> workers;  // as the workers reported them to server 0
  std::uint64_t deferred_reads = 0;  // reads the servers held back for the staleness bound
};

// The job of a parameter-server run: the layout's workers, then its servers ("the server", or
// "server s"), linked by `backend`. Across processes, worker r runs in process r and server s
// in process s mod P (so S servers spread over the processes).
GYRE_API runtime::Job ps_job(const PsLayout& layout, runtime::Backend backend);

// Runs this process's members of `job` (every member, on one machine; across processes, one
// worker per process) to the end. If any part fails the whole job stops and the root cause is
// rethrown (runtime::run). Returns the whole model where server 0 runs: on one machine, or in
// process 0, which the other servers hand their parts to at the end; nullopt in the other
// processes, which hold no whole model.
GYRE_API std::optional<PsJobResult> run_ps(const runtime::Job& job, const PsLayout& layout, const PsProgram& program,
                                           const PsJobOptions& options);

}  // namespace gyre::pipeline::ps
