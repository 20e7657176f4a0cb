// apps/lasso/lasso_worker.cpp — the Lasso worker: the rounds engine's loop over a residual shard.
#include "lasso/lasso_worker.hpp"

#include <stdexcept>

#include "gyre/rounds/rounds.hpp"

namespace gyre::lasso {

rounds::RoundsOptions rounds_options(std::uint32_t parameters, std::chrono::milliseconds timeout) {
  rounds::RoundsOptions o;
  o.name = "lasso";
  o.limits = rounds::RoundsLimits{parameters, kRoundKinds};
  o.timeout = timeout;
  return o;
}

namespace {

// The shard's rounds, and its snapshot rounds: its part written before the answer.
template <class Shard>
void serve(runtime::Mailbox& mailbox, Shard& shard, const WorkerLoopOptions& options, std::uint32_t parameters) {
  const int rank = mailbox.group().rank();
  const auto push = [&](const rounds::Task& task) {
    if (static_cast<RoundKind>(task.kind) != RoundKind::kSnapshot) return shard.push(task);
    if (!options.checkpoints || !options.checkpoints->store)
      throw std::invalid_argument("a snapshot round, but this worker has no --checkpoint directory");
    StateWriter out;
    shard.save(out);
    options.checkpoints->store->write_part(static_cast<std::uint64_t>(task.scalar), rank, out.bytes());
    return std::vector<double>{0.0};
  };
  std::function<std::vector<double>(const rounds::Task&)> answer;
  if (options.inner_products)
    answer = [&](const rounds::Task& task) {
      return rounds::answer_inner_products(*options.inner_products, task, kInnerProductKinds);
    };
  rounds::serve_rounds(
      mailbox, options.scheduler_rank, rounds_options(parameters, options.timeout),
      [&](std::span<const rounds::Step> steps) { shard.apply(steps); }, push, answer);
}

}  // namespace

void run_lasso_worker(runtime::Mailbox& mailbox, ResidualShard& shard, const WorkerLoopOptions& options) {
  serve(mailbox, shard, options, shard.features());
}

void run_lasso_worker(runtime::Mailbox& mailbox, MarginShard& shard, const WorkerLoopOptions& options) {
  serve(mailbox, shard, options, shard.intercept_id() + 1);
}

}  // namespace gyre::lasso
