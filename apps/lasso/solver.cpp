// apps/lasso/solver.cpp — threads for the row-shard workers and the scheduler, the first failure wins.
#include "lasso/solver.hpp"

#include <cmath>
#include <exception>
#include <mutex>
#include <numeric>
#include <stdexcept>
#include <string>
#include <thread>

#include "gyre/data/regression_partition.hpp"
#include "gyre/net/inproc.hpp"
#include "lasso/column_stats.hpp"
#include "lasso/lasso_worker.hpp"

namespace gyre::lasso {

LassoRun solve_embedded(const data::RegressionSet& set, const LassoConfig& config, const SolveOptions& options) {
  if (config.workers < 1) throw std::invalid_argument("workers and threads must be at least 1");
  return solve_on_groups(net::make_inproc_groups(config.workers + 1), set, config, options);
}

PreparedData prepare(const data::RegressionSet& set, const LassoConfig& config) {
  if (config.workers < 1 || config.threads < 1) throw std::invalid_argument("workers and threads must be at least 1");
  if (!(config.alpha > 0 && config.alpha <= 1)) throw std::invalid_argument("alpha must be in (0, 1]");
  if (config.depth < 1) throw std::invalid_argument("depth must be at least 1");
  if (set.samples() == 0) throw std::invalid_argument("no samples");
  PreparedData out;
  out.columns = data::to_columns(set);
  out.stats = compute_column_stats(set, out.columns, config.intercept, config.standardize);
  return out;
}

void serve_rows(net::Group& group, data::RegressionSet& shard, std::uint32_t features, const ColumnStats& stats,
                const LassoConfig& config, int scheduler_rank, std::chrono::milliseconds timeout) {
  shard.features = features;
  ResidualShard residuals(shard, stats.y_offset, config.threads);
  shard = data::RegressionSet{};  // the shard's column copies hold the rows now
  run_lasso_worker(group, residuals, WorkerLoopOptions{scheduler_rank, timeout});
}

LassoRun solve_on_groups(std::vector<std::unique_ptr<net::Group>> groups, const data::RegressionSet& set,
                         const LassoConfig& config, const SolveOptions& options) {
  const int P = config.workers;
  const PreparedData prepared = prepare(set, config);
  if (static_cast<int>(groups.size()) != P + 1) throw std::invalid_argument("P workers need P+1 ranks");
  std::vector<data::RegressionSet> shards = data::shard_rows(set, static_cast<std::uint32_t>(P));

  std::mutex mutex;
  std::exception_ptr first_error;
  auto record = [&](std::exception_ptr e) {
    std::lock_guard lock(mutex);
    if (!first_error) first_error = e;
  };
  LassoRun run;
  std::vector<std::thread> threads;
  for (int w = 0; w < P; ++w) {
    threads.emplace_back([&, w] {
      try {
        serve_rows(*groups[static_cast<std::size_t>(w)], shards[static_cast<std::size_t>(w)], set.features,
                   prepared.stats, config, P, options.timeout);
      } catch (...) {
        record(std::current_exception());
        groups[static_cast<std::size_t>(w)]->close("worker " + std::to_string(w) + " failed");
      }
    });
  }
  threads.emplace_back([&] {
    try {
      std::vector<int> ranks(static_cast<std::size_t>(P));
      std::iota(ranks.begin(), ranks.end(), 0);
      run = run_lasso_scheduler(*groups[static_cast<std::size_t>(P)], ranks,
                                SchedulerData{prepared.columns, prepared.stats}, config, options.on_check,
                                options.timeout);
    } catch (...) {
      record(std::current_exception());
    }
  });
  for (auto& t : threads) t.join();
  if (first_error) std::rethrow_exception(first_error);
  return run;
}

double objective(const data::RegressionSet& set, const LassoConfig& config, double lambda,
                 const std::vector<double>& beta, double intercept) {
  const data::ColumnMatrix columns = data::to_columns(set);
  const ColumnStats stats = compute_column_stats(set, columns, config.intercept, config.standardize);
  double rss = 0;
  for (std::uint64_t i = 0; i < set.samples(); ++i) {
    double fit = intercept;
    const auto cols = set.row_cols(i);
    const auto vals = set.row_values(i);
    for (std::size_t e = 0; e < cols.size(); ++e) fit += vals[e] * beta[cols[e]];
    rss += (set.y[i] - fit) * (set.y[i] - fit);
  }
  double penalty = 0;
  for (std::uint32_t j = 0; j < set.features; ++j) {
    const double gamma = beta[j] * stats.scale[j];
    penalty += config.alpha * std::abs(gamma) + 0.5 * (1 - config.alpha) * gamma * gamma;
  }
  return rss / (2.0 * static_cast<double>(set.samples())) + lambda * penalty;
}

}  // namespace gyre::lasso
