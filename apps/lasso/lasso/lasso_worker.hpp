// apps/lasso/lasso/lasso_worker.hpp — a worker's side of the rounds: apply the steps, return the sums asked for.
#pragma once

#include <chrono>

#include "gyre/runtime/mailbox.hpp"
#include "lasso/residual_shard.hpp"

namespace gyre::lasso {

struct WorkerLoopOptions {
  int scheduler_rank = 0;
  // Longest wait for the scheduler's next request; past it the worker reports a failure.
  std::chrono::milliseconds timeout{std::chrono::minutes(10)};
};

// Serves requests until the scheduler's stop. Throws runtime::JobFailed when the job fails
// (a failure message, a closed transport, a malformed request — the scheduler is told of the
// last two, naming this worker's rank).
void run_lasso_worker(runtime::Mailbox& mailbox, ResidualShard& shard, const WorkerLoopOptions& options);

}  // namespace gyre::lasso
