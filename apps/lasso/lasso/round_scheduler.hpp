// apps/lasso/lasso/round_scheduler.hpp — the control plane of Lasso: schedule coordinates, pull the workers' sums, step β.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <vector>

#include "gyre/rounds/scheduling.hpp"
#include "gyre/runtime/mailbox.hpp"
#include "lasso/checkpoint.hpp"
#include "lasso/column_stats.hpp"
#include "lasso/config.hpp"
#include "lasso/penalty.hpp"

namespace gyre::lasso {

// What the scheduler knows of the data: the column statistics (the workers' shards folded, see
// column_stats.hpp), never a row; the dependency check asks the workers for inner products.
struct SchedulerData {
  const ColumnStats& stats;
  std::chrono::steady_clock::time_point started;  // the solve's start: report seconds count from here
  // The inner products of the workers' shards where the scheduler's process holds them (a job
  // on threads): the same bits as asking the workers, without the round trip. Null: ask them.
  rounds::InnerProducts* inner_products = nullptr;
};

// One exact check (a full gradient) of the current iterate.
struct CheckReport {
  int lambda_index = 0;
  double lambda = 0;
  std::uint64_t round = 0;     // rounds so far, over the whole path
  double seconds = 0;          // since the solve started (SchedulerData::started)
  Certificate certificate;
  std::uint32_t nnz = 0;
  std::uint64_t updates = 0;   // coordinate updates so far, over the whole path
  std::uint32_t batch = 0;     // U in use (halved when an interval made F worse)
  int depth = 0;               // rounds in flight allowed
  std::uint64_t check = 0;     // checks reported so far, over the run's life (a checkpoint's number)
};

struct LambdaSolution {
  double lambda = 0;
  std::vector<double> beta;    // on the original scale of the features
  double intercept = 0;
  Certificate certificate;     // of this solution, from its last check
  bool converged = false;      // gap ≤ tol·F (else the update budget ran out)
  std::uint64_t updates = 0;   // spent on this λ
  std::uint64_t rounds = 0;
  std::uint64_t checks = 0;
  double seconds = 0;          // spent on this λ
};

struct LassoRun {
  double lambda_max = 0;  // the smallest λ whose solution is β = 0
  std::vector<LambdaSolution> path;
};

// Runs on its own rank; `workers` are the ranks running run_lasso_worker over the row shards.
// The rounds, checks and the path follow config (see LassoConfig); at the end every worker is
// sent a stop. On any failure the workers are told and runtime::JobFailed is thrown.
// `checkpoints`: where checkpoints go (after every target.every-th check, see checkpoint.hpp;
// the scheduler's part is rank-P, P = workers.size()), and the one to continue from.
LassoRun run_lasso_scheduler(runtime::Mailbox& mailbox, std::vector<int> workers, const SchedulerData& data,
                             const LassoConfig& config, std::function<void(const CheckReport&)> on_check,
                             std::chrono::milliseconds timeout, const Checkpoints* checkpoints = nullptr);

// Batch U when the config leaves it at 0: about a sixteenth of the usable features, 1 to 1024.
std::uint32_t default_batch(std::uint32_t usable_features);

}  // namespace gyre::lasso
