// apps/lasso/lasso/lasso_worker.hpp — a worker's side of the Lasso rounds: its residual shard, served on the rounds engine.
#pragma once

#include <chrono>
#include <cstdint>

#include "gyre/rounds/scheduling.hpp"
#include "gyre/rounds/rounds.hpp"
#include "gyre/runtime/mailbox.hpp"
#include "lasso/margin_shard.hpp"
#include "lasso/residual_shard.hpp"

namespace gyre::lasso {

// What both sides of the Lasso rounds agree on: errors name "lasso scheduler" / "lasso worker
// r"; ids are parameters (the features, and the logistic intercept after them); kinds are
// RoundKind.
rounds::RoundsOptions rounds_options(std::uint32_t parameters, std::chrono::milliseconds timeout);

struct WorkerLoopOptions {
  int scheduler_rank = 0;
  // Longest wait for the scheduler's next request; past it the worker reports a failure.
  std::chrono::milliseconds timeout{std::chrono::minutes(10)};
  // Where a snapshot round (RoundKind::kSnapshot) writes this worker's part; null: the run
  // takes no checkpoints, and a snapshot round fails it.
  const CheckpointTarget* checkpoints = nullptr;
  // The shard's inner products, for the scheduler's dependency check (queries of
  // kInnerProductKinds); null: the scheduler asks none (no check, or cycles).
  rounds::InnerProducts* inner_products = nullptr;
};

// Serves requests until the scheduler's stop; a snapshot round writes the shard's part (rank:
// this member's) before it is answered. Throws runtime::JobFailed when the job fails
// (rounds::serve_rounds).
void run_lasso_worker(runtime::Mailbox& mailbox, ResidualShard& shard, const WorkerLoopOptions& options);
// The same for the logistic loss: margins, and the intercept as parameter features().
void run_lasso_worker(runtime::Mailbox& mailbox, MarginShard& shard, const WorkerLoopOptions& options);

}  // namespace gyre::lasso
