// gyre/rotation/rotation_kernel.hpp — what an app implements to run under rotation: the per-worker update.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "gyre/base/export.hpp"
#include "gyre/collective/communicator.hpp"
#include "gyre/model/block.hpp"
#include "gyre/rotation/phase.hpp"
#include "gyre/rotation/rotation_schedule.hpp"

namespace gyre::pipeline {

// One per worker, owning that worker's shard and local state (for MF: its users' factors).
// The engine calls train/evaluate one visit at a time, in schedule order, with the block
// exclusively owned for the duration of the call; the call runs inside the worker's
// task_arena, so TBB parallelism used inside is capped at the worker's thread count.
class GYRE_API RotationKernel {
 public:
  virtual ~RotationKernel() = default;
  virtual void train(model::Block& block, const scheduler::Visit& visit) = 0;
  virtual void evaluate(const model::Block& block, const scheduler::Visit& visit) = 0;
  // Called before the first visit of every phase with what the scheduler sent with its start
  // (RotationOptions::phase_payload; empty if it sends nothing).
  virtual void start_phase(std::uint64_t /*phase*/, scheduler::PhaseKind /*kind*/, std::span<const std::byte> /*payload*/) {}
  // Called once every visit of this worker's phase is done, before its report is taken, with
  // the blocks it keeps into the next phase (read-only: no visit runs until the next phase
  // starts). This worker's part of a consistent cut: local state to reconcile, a snapshot.
  virtual void end_phase(std::uint64_t /*phase*/, scheduler::PhaseKind /*kind*/,
                         std::span<const model::Block* const> /*held*/) {}
  // Sums accumulated over this worker's visits of the phase just finished; resets them.
  virtual scheduler::PhaseSums take_phase_sums(scheduler::PhaseKind kind) = 0;
  // Called once before the first visit with the collectives over all workers (ring order =
  // rank order), for kernels that also reconcile state that does not rotate (LDA's topic
  // totals). Collectives may be called from train(): every worker makes the same number of
  // visits per phase, so a collective at a fixed visit index meets on every worker. The
  // communicator outlives every visit.
  virtual void attach(collective::Communicator& /*workers*/) {}
};

}  // namespace gyre::pipeline
