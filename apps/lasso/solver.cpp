// apps/lasso/solver.cpp — threads for the row-shard workers and the scheduler, the first failure wins.
#include "lasso/solver.hpp"

#include <algorithm>
#include <deque>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <string>

#include "gyre/data/regression_partition.hpp"
#include "gyre/runtime/job.hpp"
#include "lasso/column_models.hpp"
#include "lasso/column_stats.hpp"
#include "lasso/lasso_worker.hpp"
#include "lasso/logistic.hpp"
#include "lasso/logistic_stepper.hpp"

namespace gyre::lasso {

LassoRun solve_embedded(const data::RegressionSet& set, const LassoConfig& config, const SolveOptions& options) {
  if (config.model != ComputationModel::kRounds)
    return *solve_by_columns(column_job(config.workers, runtime::ThreadsBackend{}), set, config, options);
  return *solve(lasso_job(config.workers, runtime::ThreadsBackend{}), set, config, options);
}

void validate_samples(std::uint64_t samples, const LassoConfig& config) {
  config.validate();
  if (samples == 0) throw std::invalid_argument("no samples");
  if (static_cast<std::uint64_t>(config.workers) > samples)
    throw std::invalid_argument(std::to_string(config.workers) + " workers but only " + std::to_string(samples) +
                                " samples: at most one worker per sample");
}

void validate(const data::RegressionSet& set, const LassoConfig& config) {
  validate_samples(set.samples(), config);
  if (config.loss == Loss::logistic) {
    bool zero = false, one = false;
    for (std::uint64_t i = 0; i < set.samples(); ++i) {
      if (set.y[i] != 0 && set.y[i] != 1)
        throw std::invalid_argument("the logistic loss needs labels 0 and 1 (data::binary_labels maps two classes): "
                                    "sample " + std::to_string(i) + " has " + std::to_string(set.y[i]));
      (set.y[i] == 0 ? zero : one) = true;
    }
    if (config.intercept && !(zero && one))
      throw std::invalid_argument("logistic regression with an intercept needs samples of both classes");
  }
}

ColumnStats shards_column_stats(std::span<const data::RegressionSet> shards, const LassoConfig& config) {
  std::vector<ShardColumnSums> sums;
  sums.reserve(shards.size());
  for (const data::RegressionSet& shard : shards) sums.push_back(shard_column_sums(shard));
  return fold_column_stats(sums, config.intercept, config.standardize);
}

int shard_parts(const data::RegressionSet& rows, int threads) {
  return static_cast<int>(std::clamp<std::uint64_t>(rows.nnz() >> 16, 1, static_cast<std::uint64_t>(threads)));
}

namespace {
// A resumed worker's shard takes its state from its part of the checkpoint.
template <class Shard>
void resume_part(Shard& shard, runtime::Mailbox& mailbox, const Checkpoints* checkpoints) {
  if (!checkpoints || !checkpoints->resume) return;
  const OpenedPart part = open_part(*checkpoints->resume, mailbox.group().rank());
  StateReader in = part.reader();
  shard.restore(in);
  in.finish();
}
}  // namespace

ShardProducts::ShardProducts(const data::RegressionSet& rows, std::uint64_t samples)
    : columns(data::to_columns(rows)),
      source(rounds::SparseLines{rows.row_begin, rows.cols, rows.values},
             rounds::SparseLines{columns.col_begin, columns.rows, columns.values}, rows.sample_ids, samples) {}

bool asks_inner_products(const LassoConfig& config) {
  return !worker_cycles(config, static_cast<std::size_t>(config.workers)) && config.rho < 1;
}

void serve_rows(runtime::Mailbox& mailbox, const data::RegressionSet& rows, const HeldRows& held, const LassoConfig& config,
                int scheduler_rank, std::chrono::milliseconds timeout, const ColumnStats* cycle_stats,
                const Checkpoints* checkpoints, bool answers) {
  WorkerLoopOptions options{scheduler_rank, timeout, checkpoints ? &checkpoints->target : nullptr, nullptr};
  const bool cycles = cycle_stats && worker_cycles(config, 1);
  // The dependency check's inner products over this shard, for the scheduler's questions.
  std::optional<ShardProducts> products;
  if (answers && asks_inner_products(config)) options.inner_products = &products.emplace(rows, held.samples).source;
  // A worker's cycles walk its parts one after another on one thread, so with its rows in T
  // parts (T copies of the columns to walk) they only lose: on 100k × 100k rows at
  // 0.1·λ_max, logistic T = 2 solved in 2.23-2.30 s against T = 1's 1.95-1.99 s, and in
  // 1.98-2.00 s with one part; at 0.01·λ_max least squares took 0.148-0.176 s to the target
  // at T = 2 against 0.121-0.176 s at T = 1. A cycling worker keeps one part, and its T threads
  // share its passes over every column (the checks).
  const int parts = cycles ? 1 : shard_parts(rows, config.threads);
  if (config.loss == Loss::logistic) {
    MarginShard margins(rows, parts, config.threads);
    std::optional<LogisticStepper> stepper;
    if (cycles) {
      stepper.emplace(*cycle_stats, config.intercept);
      margins.enable_cycles(LogisticCycleSettings{&*stepper, config.alpha, config.tol});
    }
    resume_part(margins, mailbox, checkpoints);
    run_lasso_worker(mailbox, margins, options);
    return;
  }
  ResidualShard residuals(rows, held.y_offset, parts, config.threads);
  if (cycles) residuals.enable_cycles(CycleSettings{cycle_stats, config.alpha, config.tol});
  resume_part(residuals, mailbox, checkpoints);
  run_lasso_worker(mailbox, residuals, options);
}

runtime::Job lasso_job(int workers, runtime::Backend backend) {
  return runtime::Job{workers, {"the scheduler"}, std::move(backend), {}, {}};
}

std::optional<LassoRun> solve(const runtime::Job& job, const data::RegressionSet& set, const LassoConfig& config,
                              const SolveOptions& options) {
  validate(set, config);
  // One worker reads the set itself; more get their rows (across processes every process
  // makes the same split of the whole set and keeps its own shard).
  std::vector<data::RegressionSet> shards;
  if (config.workers > 1) shards = data::shard_rows(set, static_cast<std::uint32_t>(config.workers));
  const ColumnStats stats =
      shards.empty() ? shards_column_stats(std::span(&set, 1), config) : shards_column_stats(shards, config);
  const HeldRows rows{[&](int worker) -> const data::RegressionSet& {
                        return shards.empty() ? set : shards[static_cast<std::size_t>(worker)];
                      },
                      stats.y_offset, stats.samples, &stats};
  return solve_held(job, rows, config, options);
}

std::optional<LassoRun> solve_held(const runtime::Job& job, const HeldRows& rows, const LassoConfig& config,
                                   const SolveOptions& options) {
  const auto started = std::chrono::steady_clock::now();
  const int P = config.workers;
  if (job.workers != P || job.roles.size() != 1)
    throw std::invalid_argument("a Lasso job has config.workers workers and one scheduler");
  if (config.model != ComputationModel::kRounds)
    throw std::invalid_argument("solve_held runs the rounds: the column models are solve_by_columns'");
  const bool across_processes = std::holds_alternative<runtime::ProcessesBackend>(job.backend);

  // A worker that runs cycles holds every row, so it is in the scheduler's process, beside the
  // statistics.
  const bool cycles = worker_cycles(config, static_cast<std::size_t>(P));
  if (cycles && !rows.stats) throw std::logic_error("solve_held: a cycling worker without the column statistics");

  std::optional<LassoRun> run;
  runtime::run(job, [&](const runtime::Member& m) {
    if (m.rank < P) {
      serve_rows(m.mailbox, rows.rows_of(m.rank), rows, config, P, options.timeout, cycles ? rows.stats : nullptr,
                 &options.checkpoints, across_processes);
      if (across_processes && options.on_traffic) options.on_traffic(m.group.bytes_sent());
      return;
    }
    if (!rows.stats) throw std::logic_error("solve_held: the scheduler runs where the column statistics are not");
    std::vector<int> ranks(static_cast<std::size_t>(P));
    std::iota(ranks.begin(), ranks.end(), 0);
    // On threads the workers' shards are in this process: the scheduler sums their inner
    // products itself, as the workers would (SummedInnerProducts), overlapping their rounds.
    std::deque<ShardProducts> shards;
    std::optional<rounds::SummedInnerProducts> local;
    if (!across_processes && asks_inner_products(config)) {
      std::vector<rounds::ShardInnerProducts*> each;
      for (int w = 0; w < P; ++w) each.push_back(&shards.emplace_back(rows.rows_of(w), rows.samples).source);
      local.emplace(std::move(each), rows.stats->features());
    }
    const SchedulerData data{*rows.stats, started, local ? &*local : nullptr};
    run = run_lasso_scheduler(m.mailbox, ranks, data, config, options.on_check, options.timeout, &options.checkpoints);
  });
  return run;
}

double objective(const data::RegressionSet& set, const LassoConfig& config, double lambda,
                 const std::vector<double>& beta, double intercept) {
  // The penalty is on the fit's coefficients; only standardisation makes them differ from β.
  std::vector<double> scale(set.features, 1.0);
  if (config.standardize) scale = compute_column_stats(set, config.intercept, true).scale;
  double loss = 0;
  for (std::uint64_t i = 0; i < set.samples(); ++i) {
    double fit = intercept;
    const auto cols = set.row_cols(i);
    const auto vals = set.row_values(i);
    for (std::size_t e = 0; e < cols.size(); ++e) fit += vals[e] * beta[cols[e]];
    loss += config.loss == Loss::logistic ? 2 * logistic_loss(fit, set.y[i]) : (set.y[i] - fit) * (set.y[i] - fit);
  }
  double penalty = 0;
  for (std::uint32_t j = 0; j < set.features; ++j) {
    const double gamma = beta[j] * scale[j];
    penalty += config.alpha * std::abs(gamma) + 0.5 * (1 - config.alpha) * gamma * gamma;
  }
  return loss / (2.0 * static_cast<double>(set.samples())) + lambda * penalty;
}

}  // namespace gyre::lasso
