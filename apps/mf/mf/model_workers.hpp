// apps/mf/mf/model_workers.hpp — one worker's loop under each of Harp's locking, allreduce and no-sync models.
#pragma once

#include <oneapi/tbb/task_arena.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "gyre/model/block.hpp"
#include "gyre/rotation/protocol.hpp"
#include "gyre/runtime/mailbox.hpp"
#include "mf/mf_kernel.hpp"
#include "mf/trainer.hpp"

namespace gyre::mf {

// Ranks 0 … workers−1.
std::vector<int> worker_ranks(int workers);

// What every model's worker has: its kernel (user rows, ratings), an arena of T threads, and
// its member's mailbox (a failure notice ends every wait). Workers are ranks 0 … P−1, the driver rank P.
struct ModelWorker {
  const MfPlan& plan;
  int rank;
  MfKernel& kernel;
  oneapi::tbb::task_arena& arena;
  runtime::Mailbox& inbox;
  std::chrono::milliseconds timeout;
  // C: called as a training phase ends (after the replicas are equal again), as the rotation
  // engine's at_phase_end is, with the blocks worker 0 hands in: the whole replica (checkpoints).
  std::function<void(int, std::uint64_t, rotation::PhaseKind, std::span<const model::Block* const>)> at_phase_end;

  int workers() const { return plan.config.workers; }
  int driver_rank() const { return plan.config.workers; }
  std::vector<int> worker_ranks() const { return mf::worker_ranks(workers()); }
  // Blocks in this worker's order: starting at its own first block, so that workers begin apart.
  std::vector<model::BlockId> block_order() const;
  void train(model::Block& block);
  void evaluate(const model::Block& block);
};

// A: phases from the driver; in each phase takes any block still to do, with its value, from
// the lock service on `lock_rank` (which keeps the one copy of the item blocks), trains or
// evaluates it, and hands it back. After the last phase worker 0 takes every block once more
// and returns them (the model, for the gather); the others return nothing.
std::vector<model::Block> run_locking_worker(ModelWorker& w, int lock_rank);

// C: phases from the driver; a train phase trains every block on this worker's `replica`, then
// applies the workers' mean change, summed by config.collective, so all replicas are equal
// again. (Syncing after each block instead gives the same result: blocks share no items and
// user rows are never averaged.)
void run_allreduce_worker(ModelWorker& w, std::vector<model::Block>& replica);

// D: no barrier. Trains epoch after epoch on `replica` while a ModelAverager averages it with
// the peers' every average_ms; after each epoch (and evaluation, when due) reports its sums to
// the scheduler's PhaseTally, numbering phases as the epoch policy does. At the end the
// replicas, which end apart, are replaced by their mean.
void run_nosync_worker(ModelWorker& w, std::vector<model::Block>& replica);

}  // namespace gyre::mf
