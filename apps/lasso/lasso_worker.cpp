// apps/lasso/lasso_worker.cpp — the Lasso worker: the rounds engine's loop over a residual shard.
#include "lasso/lasso_worker.hpp"

#include "gyre/pipeline/rounds_job.hpp"

namespace gyre::lasso {

scheduler::RoundsOptions rounds_options(std::uint32_t parameters, std::chrono::milliseconds timeout) {
  scheduler::RoundsOptions o;
  o.name = "lasso";
  o.limits = scheduler::RoundsLimits{parameters, kRoundKinds};
  o.timeout = timeout;
  return o;
}

void run_lasso_worker(runtime::Mailbox& mailbox, ResidualShard& shard, const WorkerLoopOptions& options) {
  pipeline::serve_rounds(mailbox, options.scheduler_rank, rounds_options(shard.features(), options.timeout), shard);
}

void run_lasso_worker(runtime::Mailbox& mailbox, MarginShard& shard, const WorkerLoopOptions& options) {
  pipeline::serve_rounds(mailbox, options.scheduler_rank, rounds_options(shard.intercept_id() + 1, options.timeout),
                         shard);
}

}  // namespace gyre::lasso
