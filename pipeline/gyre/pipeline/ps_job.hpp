// gyre/pipeline/ps_job.hpp — a parameter-server job: the schedule, push, pull, barrier and stop verbs run by workers and servers.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "gyre/net/group.hpp"
#include "gyre/pipeline/cluster_job.hpp"
#include "gyre/pipeline/ps_server.hpp"
#include "gyre/pipeline/ps_worker.hpp"

namespace gyre::pipeline::ps {

// The app's side of the job, in the verbs of the parameter-server family (Owl, Petuum, ps-lite).
struct PsProgram {
  // Which keys a worker updates in its next step (its clock is given). Empty: every key.
  std::function<std::vector<Key>(int worker, std::int64_t clock)> schedule;
  // The worker's step: reads the model through worker.get(), returns updates for the servers.
  std::function<KeyValues(PsWorker& worker, std::span<const Key> keys)> push;
  // How a server folds an update into a stored value. Empty: adds it.
  Fold pull;
  // Asked after each barrier: true ends this worker. Required.
  std::function<bool(PsWorker& worker)> stop;
  // A key's value before any push. Empty: zeros.
  std::function<Value(Key)> initial;
};

struct PsJobOptions {
  scheduler::BarrierSpec barrier;
  std::chrono::milliseconds timeout{std::chrono::minutes(10)};
  std::uint64_t seed = 1;
  std::int64_t cache_clocks = 0;  // see PsWorkerOptions
};

struct PsJobResult {
  std::vector<Value> values;  // by key, as the servers hold them at the end
  std::vector<PsWorkerReport> workers;  // as the workers reported them to server 0
  std::uint64_t deferred_reads = 0;  // reads the servers held back for the staleness bound
};

// Runs the job over `groups` (layout.workers + layout.servers ranks of one backend; workers
// first), each rank on its own thread. If any part fails the whole job stops and the first
// error is rethrown.
PsJobResult run_ps_job(std::vector<std::unique_ptr<net::Group>> groups, const PsLayout& layout, const PsProgram& program,
                       const PsJobOptions& options);
// The same over inproc groups.
PsJobResult run_ps_embedded(const PsLayout& layout, const PsProgram& program, const PsJobOptions& options);

// One process's part of a multi-process job (mpirun, srun, or by hand) with one server: worker
// `launch.rank` runs here, and process 0 also hosts the server as the job's scheduler member
// (rank P). `layout` must have launch.size workers and one server. Returns the result on
// process 0, nullopt elsewhere; throws scheduler::JobFailed if any part fails.
std::optional<PsJobResult> run_ps_cluster(const ClusterJobOptions& cluster, const PsLayout& layout,
                                          const PsProgram& program, const PsJobOptions& options);

}  // namespace gyre::pipeline::ps
