// apps/common/app/ps_sgd_checkpoint.hpp — checkpoints of data-parallel SGD on the parameter server: the model and every worker's state at epoch boundaries, and resuming from them.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "gyre/checkpoint/store.hpp"

namespace gyre::app::ps_sgd {

// Where a run writes its checkpoints (an epoch is clocks_per_epoch steps of every worker).
struct Checkpoints {
  std::shared_ptr<const checkpoint::Store> store;  // null: none written
  int every = 1;                                    // epochs between checkpoints
  cluster::JobSettings settings;                    // recorded in each manifest
};

// What a worker has drawn from its random streams: its batches' rows and its step delays.
struct WorkerDraws {
  std::uint64_t rows = 0;
  std::uint64_t delays = 0;
};

// The state a resumed run starts from: the clock every worker had reached, the model the
// servers held then (every push of the steps before it folded in), each worker's draws.
struct Resumed {
  std::int64_t epoch = 0;
  std::int64_t clock = 0;
  std::vector<double> parameters;
  std::vector<WorkerDraws> draws;  // per worker
};

// Reads the checkpoint `found` (every part; worker 0's holds the model) of `workers` workers.
// Throws InputError naming the file and what is wrong.
Resumed read_checkpoint(const checkpoint::Found& found, int workers);

// The checkpoints of one run, told of every worker's steps. At a due epoch's last clock C every
// worker writes its part (its draws; worker 0 also the whole model, as it read it for step C:
// under BSP exactly the servers' state after every push of steps < C). Worker 0 makes the
// checkpoint whole `lag` steps later (BSP: 1, SSP(s): s + 1), when the barrier guarantees that
// every worker has finished step C and so written its part; then it reports the epoch.
class EpochCheckpointer {
 public:
  EpochCheckpointer(Checkpoints target, int workers, std::int64_t clocks_per_epoch, std::int64_t lag,
                    std::int64_t start_clock, std::function<void(std::int64_t epoch)> on_epoch);

  // Worker `worker` at step `clock` (counted over the model's life), having read `model`, with
  // `draws` made before this step. Called on the worker's own thread.
  void at_step(int worker, std::int64_t clock, std::span<const double> model, WorkerDraws draws) const;

 private:
  bool due(std::int64_t epoch) const { return target_.store && epoch % target_.every == 0; }

  Checkpoints target_;
  int workers_;
  std::int64_t per_epoch_, lag_, start_;
  std::function<void(std::int64_t)> on_epoch_;
};

}  // namespace gyre::app::ps_sgd
