// gyre/rotation/rotation_job.hpp — running a rotation job on the runtime: on any backend (run_rotation), all in
// this process (run_embedded), as one process of many, or in one call that makes the blocks (rotate).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "gyre/base/export.hpp"
#include "gyre/model/block.hpp"
#include "gyre/net/group.hpp"
#include "gyre/rotation/rotation_kernel.hpp"
#include "gyre/rotation/rotation_schedule.hpp"
#include "gyre/runtime/job.hpp"
#include "gyre/runtime/mailbox.hpp"

namespace gyre::rotation {

struct RotationOptions {
  int threads_per_worker = 1;
  // Visits in flight per worker (WorkerOptions::depth); zero: the schedule's blocks per worker.
  // The number of blocks is the schedule's: P · blocks_per_worker.
  int depth = 0;
  // Peer liveness: the longest wait of a worker for work, and of the scheduler for a phase report.
  std::chrono::milliseconds timeout{std::chrono::minutes(10)};
  // The longest one visit may take (see WorkerOptions::visit_deadline); zero: none.
  std::chrono::milliseconds visit_deadline{std::chrono::minutes(10)};
  // Counts owners per block; the job fails if any block had two. Only where every worker runs
  // in this process; null: no counting in release builds (debug builds count on their own).
  model::OwnershipRegistry* registry = nullptr;
  // What each phase starts with, for every worker's kernel (RotationKernel::start_phase); asked
  // on the scheduler's side (see PhasePayload). Empty: nothing.
  PhasePayload phase_payload;
  // Called after every visit with the worker's rank (tests check the schedule with it).
  std::function<void(int worker, const Visit&)> on_visit;
  // WorkerOptions::at_phase_end, with the worker's rank.
  std::function<void(int worker, std::uint64_t phase, PhaseKind kind, std::span<const model::Block* const> held)>
      at_phase_end;
};

// A worker's part: its kernel (not owned) and the blocks it starts with
// (schedule.held_at_start(rank, 0)).
struct RotationWorker {
  RotationKernel* kernel = nullptr;
  std::vector<model::Block> initial_blocks;
};

// Called in a worker's part once its engine has ended, with the blocks it then holds, while
// its links are still up: across processes the apps gather the model to rank 0 here.
using AfterRotation = std::function<void(const runtime::Member& member, std::vector<model::OwnedBlock> held)>;

// The job of a rotation run: `workers` workers, then "the scheduler".
GYRE_API runtime::Job rotation_job(int workers, runtime::Backend backend);

// Runs this process's members of `job` (rotation_job): worker w's engine over worker(w)'s
// kernel, the scheduler running `policy`. `layout` is every block's shape by id, from this
// process's plan: blocks that arrive in another shape (a peer with other data or flags) fail
// the job. Throws as runtime::run does: the root cause, naming the member where it is known.
GYRE_API void run_rotation(const runtime::Job& job, const RotationSchedule& schedule,
                           const std::vector<model::BlockShape>& layout, const std::function<RotationWorker(int rank)>& worker,
                           const PhasePolicy& policy, const RotationOptions& options, const AfterRotation& after);

// --- The embedded default: every member in this process ---

using EmbeddedJobOptions = RotationOptions;
using EmbeddedWorker = RotationWorker;

// Runs one rotation job with every member in this process (runtime::ThreadsBackend by default,
// or runtime::LoopbackBackend for the real wire): worker w on its own thread with an arena of
// threads_per_worker, the scheduler (running `policy`) on another. Returns, per worker, the
// blocks it holds at the end. If any part fails, every part stops and the root cause is
// thrown: the kernel's own exception, or runtime::JobFailed with the first failure's text.
// The initial blocks of all workers together must be every block of the schedule once; their
// shapes are the layout every worker checks arriving blocks against (std::invalid_argument
// otherwise). Across processes, use run_rotation.
GYRE_API std::vector<std::vector<model::OwnedBlock>> run_embedded(const RotationSchedule& schedule,
                                                                  std::vector<EmbeddedWorker> workers,
                                                                  const PhasePolicy& policy,
                                                                  const EmbeddedJobOptions& options,
                                                                  runtime::Backend backend = runtime::ThreadsBackend{});
// The same on `job` (rotation_job(P, backend), or the job runtime::start() hands its program,
// whose control cancels the run).
GYRE_API std::vector<std::vector<model::OwnedBlock>> run_embedded(const runtime::Job& job,
                                                                  const RotationSchedule& schedule,
                                                                  std::vector<EmbeddedWorker> workers,
                                                                  const PhasePolicy& policy,
                                                                  const EmbeddedJobOptions& options);

// --- What an app knows of a multi-process job ---

// How this process joins the job (the runtime's backend: launcher rank, coordinator, token,
// settings, connection limits, injected faults) and what the engines need besides.
struct ClusterJobOptions : runtime::ProcessesBackend {
  std::chrono::milliseconds timeout{std::chrono::minutes(10)};  // longest wait of a worker for work
  std::chrono::milliseconds visit_deadline{std::chrono::minutes(10)};  // longest visit (RotationOptions)
  model::OwnershipRegistry* registry = nullptr;
};

// The runtime's part of the options.
inline const runtime::ProcessesBackend& processes_backend(const ClusterJobOptions& options) { return options; }
// The engine options for a rotation run, with `threads` per worker and `depth` visits in flight
// (zero: the schedule's blocks per worker).
GYRE_API RotationOptions rotation_options(const ClusterJobOptions& options, int threads, int depth = 0);

// The rotation engine in one call: the blocks made, the kernels run, the model returned where it is whole.

// What rotates: P · blocks_per_worker blocks of one shape (rows × stride floats), and how each starts.
struct RotationModel {
  int blocks_per_worker = 1;
  model::BlockShape shape;
  std::function<void(model::Block&)> init;  // a block's values before its first visit; empty: zeros
  RingOrder order = RingOrder::kFixed;
  std::uint64_t seed = 1;  // of the ring order
};

// Runs this process's members of `job` (rotation_job(P, backend), or the job runtime::start()
// hands its program): worker w's engine over kernel(w), which the caller keeps alive; the
// scheduler, wherever it runs, asks `policy` for each phase. Returns every block, in id order,
// in the process that hosts worker 0 (runtime::reports(job.backend)); an empty vector in the
// other processes, where the model is not whole. Throws as runtime::run does.
GYRE_API std::vector<model::Block> rotate(const runtime::Job& job, const RotationModel& model,
                                          const std::function<RotationKernel&(int worker)>& kernel,
                                          const PhasePolicy& policy, const RotationOptions& options = {});

// A policy that trains `phases` phases, calling report(result) after each (where the scheduler
// runs: in the process that hosts worker 0).
GYRE_API PhasePolicy train_phases(std::uint64_t phases,
                                             std::function<void(const PhaseResult&)> report = {});

}  // namespace gyre::rotation
