// apps/lasso/lasso/solver.hpp — solve a Lasso / elastic-net job in one process: P row-shard workers and the scheduler as threads.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "gyre/data/column_matrix.hpp"
#include "gyre/data/regression.hpp"
#include "gyre/net/group.hpp"
#include "gyre/rounds/scheduling.hpp"
#include "gyre/runtime/job.hpp"
#include "gyre/runtime/mailbox.hpp"
#include "lasso/checkpoint.hpp"
#include "lasso/column_stats.hpp"
#include "lasso/config.hpp"
#include "lasso/round_scheduler.hpp"

namespace gyre::lasso {

struct SolveOptions {
  std::function<void(const CheckReport&)> on_check;
  // Multi-process runs: bytes this rank's worker put on the wire (called once, at the end).
  std::function<void(std::uint64_t)> on_traffic;
  // Longest wait for any one message; past it the job fails naming who is silent.
  std::chrono::milliseconds timeout{std::chrono::minutes(10)};
  // Checkpoints to take (target.store set) and the one to continue from (resume set). Each
  // process gives its own: across processes every rank writes its worker's part, and rank 0's
  // scheduler the last one and the manifest.
  Checkpoints checkpoints;
};

// The rows are dealt to config.workers shards balanced by non-zeros (data::shard_rows); worker
// w runs on its own thread with config.threads threads, the scheduler on another, over inproc
// links. Under the column models (config.model) the workers own columns instead
// (column_models.hpp). Throws std::invalid_argument for impossible settings and runtime::JobFailed when
// any part fails (every part stops).
LassoRun solve_embedded(const data::RegressionSet& set, const LassoConfig& config, const SolveOptions& options = {});

// The job of a Lasso run: config.workers workers, then "the scheduler".
runtime::Job lasso_job(int workers, runtime::Backend backend);

// Runs this process's members of `job` (every member, on one machine; across processes worker
// r in process r and the scheduler in process 0, each process passing the whole data set and
// keeping its own shard of rows, the same shards as `--workers P` in one process). Returns the
// run where the scheduler ran, nullopt elsewhere. Throws as solve_embedded does.
std::optional<LassoRun> solve(const runtime::Job& job, const data::RegressionSet& set, const LassoConfig& config,
                              const SolveOptions& options = {});

// What one process holds of the rows: the rows of each worker it runs and, where the scheduler
// runs, the column statistics of every shard's rows together (fold_column_stats; null
// elsewhere). y_offset and samples: the statistics' response offset, which every worker starts
// its residual from, and row count (the rows are numbered by their sample ids).
struct HeldRows {
  std::function<const data::RegressionSet&(int worker)> rows_of;
  double y_offset = 0;
  std::uint64_t samples = 0;
  const ColumnStats* stats = nullptr;
};
// solve() over rows already dealt (lasso::load_rows_across across processes): the whole set
// is checked (validate) by whoever loaded it.
std::optional<LassoRun> solve_held(const runtime::Job& job, const HeldRows& rows, const LassoConfig& config,
                                   const SolveOptions& options = {});

// Throws std::invalid_argument for settings or data no job can run with.
void validate(const data::RegressionSet& set, const LassoConfig& config);
// The part of validate() that needs only the number of samples (of every process's rows).
void validate_samples(std::uint64_t samples, const LassoConfig& config);

// The column statistics of `shards` together (one worker: of the whole set), as the scheduler
// of a job over those shards makes them.
ColumnStats shards_column_stats(std::span<const data::RegressionSet> shards, const LassoConfig& config);

// How many parts (threads) a worker's shard is dealt into: at most `threads`, and one per 2¹⁶
// non-zeros, as a smaller part costs more to hand to a thread than to sum (so a small table
// runs on one thread).
int shard_parts(const data::RegressionSet& rows, int threads);

// One worker's part: its rows as a residual shard (from held.y_offset), served until the
// scheduler at `scheduler_rank` stops the job. `cycle_stats`: the column statistics, given when
// this worker holds every row and runs cycles (worker_cycles()). `checkpoints`: where snapshot
// rounds write the worker's part, and the checkpoint whose part it starts from. `answers`: the
// worker answers the scheduler's questions about its inner products (when the rounds'
// dependency check asks them: asks_inner_products) from a column copy of its rows; a scheduler
// in the same process sums the shards' itself instead.
void serve_rows(runtime::Mailbox& mailbox, const data::RegressionSet& rows, const HeldRows& held, const LassoConfig& config,
                int scheduler_rank, std::chrono::milliseconds timeout, const ColumnStats* cycle_stats = nullptr,
                const Checkpoints* checkpoints = nullptr, bool answers = true);

// Whether the scheduler of `config`'s job runs the dependency check on rounds (no worker cycles,
// ρ < 1), and so needs the shards' inner products.
bool asks_inner_products(const LassoConfig& config);

// A shard's rows by column too, and the inner products over them (rounds::ShardInnerProducts;
// `samples`: the rows of every shard).
struct ShardProducts {
  ShardProducts(const data::RegressionSet& rows, std::uint64_t samples);
  data::ColumnMatrix columns;
  rounds::ShardInnerProducts source;
};

// F(β, b) of LassoConfig, computed directly from the data: what tests and tools compare with.
double objective(const data::RegressionSet& set, const LassoConfig& config, double lambda,
                 const std::vector<double>& beta, double intercept);

}  // namespace gyre::lasso
