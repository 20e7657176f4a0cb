// apps/lasso/lasso/solver.hpp — solve a Lasso / elastic-net job in one process: P row-shard workers and the scheduler as threads.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <vector>

#include "gyre/data/regression.hpp"
#include "gyre/net/group.hpp"
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
};

// The rows are dealt to config.workers shards balanced by non-zeros (data::shard_rows); worker
// w runs on its own thread with config.threads threads, the scheduler on another, over inproc
// links. Throws std::invalid_argument for impossible settings and scheduler::JobFailed when
// any part fails (every part stops).
LassoRun solve_embedded(const data::RegressionSet& set, const LassoConfig& config, const SolveOptions& options = {});

// The same over groups the caller made: workers+1 ranks of one backend, 0..P−1 the workers and
// P the scheduler (tests run the job over tcp on loopback this way).
LassoRun solve_on_groups(std::vector<std::unique_ptr<net::Group>> groups, const data::RegressionSet& set,
                         const LassoConfig& config, const SolveOptions& options = {});

// Throws std::invalid_argument for settings or data no job can run with.
void validate(const data::RegressionSet& set, const LassoConfig& config);

// What the scheduler derives from the whole data set before the rounds: the column copy (which
// the dependency check walks) and the column statistics.
struct PreparedData {
  data::ColumnMatrix columns;
  ColumnStats stats;
};
PreparedData prepare(const data::RegressionSet& set, const LassoConfig& config);

// One worker's part: its rows as a residual shard (y_offset is response_offset()), served until
// the scheduler at `scheduler_rank` stops the job. Workers build their shards while the
// scheduler prepares, which needs nothing from them.
void serve_rows(net::Group& group, const data::RegressionSet& rows, double y_offset, const LassoConfig& config,
                int scheduler_rank, std::chrono::milliseconds timeout);

// F(β, b) of LassoConfig, computed directly from the data: what tests and tools compare with.
double objective(const data::RegressionSet& set, const LassoConfig& config, double lambda,
                 const std::vector<double>& beta, double intercept);

}  // namespace gyre::lasso
