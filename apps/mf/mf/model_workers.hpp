// apps/mf/mf/model_workers.hpp — one worker's loop under each of Harp's locking, allreduce and no-sync models.
#pragma once

#include <oneapi/tbb/task_arena.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <vector>

#include "gyre/model/block.hpp"
#include "gyre/runtime/mailbox.hpp"
#include "gyre/scheduler/protocol.hpp"
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

  int workers() const { return plan.config.workers; }
  int driver_rank() const { return plan.config.workers; }
  std::vector<int> worker_ranks() const { return mf::worker_ranks(workers()); }
  // Blocks in this worker's order: starting at its own first block, so that workers begin apart.
  std::vector<model::BlockId> block_order() const;
  void train(model::Block& block);
  void evaluate(const model::Block& block);
};

// A: phases from the driver; in a train phase takes any block still to do from the lock
// service on `lock_rank`, trains it in `shared` (the one copy every worker writes), hands it back.
void run_locking_worker(ModelWorker& w, std::vector<model::Block>& shared, int lock_rank);

// C: phases from the driver; a train phase trains every block on this worker's `replica`, then
// applies the workers' mean change, summed by config.collective, so all replicas are equal
// again. (Syncing after each block instead gives the same result: blocks share no items and
// user rows are never averaged.)
void run_allreduce_worker(ModelWorker& w, std::vector<model::Block>& replica);

// D: no driver and no barrier. Trains epoch after epoch on `replica` while a ModelAverager
// averages it with the peers' every average_ms; after each epoch (and evaluation, when due)
// hands its sums to `report(phase, kind, sums)`, numbering phases as the epoch policy does.
using PhaseReport = std::function<void(std::uint64_t phase, scheduler::PhaseKind kind, const scheduler::PhaseSums& sums)>;
void run_nosync_worker(ModelWorker& w, std::vector<model::Block>& replica, const PhaseReport& report);

}  // namespace gyre::mf
