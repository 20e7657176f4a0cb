// apps/lasso/lasso/lambda_path.hpp — the λ path: its grid from λ_max, the λ being solved, and what each solved λ cost.
#pragma once

#include <chrono>
#include <cstdint>
#include <span>
#include <vector>

#include "lasso/checkpoint.hpp"
#include "lasso/column_stats.hpp"
#include "lasso/config.hpp"
#include "lasso/penalty.hpp"
#include "lasso/round_scheduler.hpp"

namespace gyre::lasso {

// What the control plane has spent so far, over the run's life.
struct Spent {
  std::uint64_t updates = 0, rounds = 0, checks = 0;
};

class LambdaPath {
 public:
  using Clock = std::chrono::steady_clock;

  // λ_max from the gradient at β = 0 (every |g_j| ≤ λα exactly when λ ≥ max|g_j|/α), then the
  // grid: config.lambdas, or config.path_length λs from λ_max down to λ_max·ratio, evenly on a log scale.
  void start(std::span<const double> gradients, const LassoConfig& config, const ColumnStats& stats,
             std::uint32_t usable);
  // Moves to λ number k, counting what it spends from `now`; false past the last λ.
  bool begin(std::size_t k, double alpha, Spent now);
  // The λ being solved is done: `solution` (its coefficients, certificate and convergence),
  // with what it spent up to `now`, joins the path.
  void finish(LambdaSolution solution, Spent now);

  std::size_t index() const { return index_; }
  const Penalty& penalty() const { return penalty_; }
  // Updates spent on this λ so far.
  std::uint64_t updates_since_begin(std::uint64_t updates) const { return updates - before_.updates; }
  LassoRun result() && { return std::move(run_); }

  // A checkpoint's parts, where the scheduler's state puts them: the time spent on this λ; the
  // solved λs and the grid; what was spent before this λ.
  double seconds_on_lambda() const { return std::chrono::duration<double>(Clock::now() - began_).count(); }
  void resume_clock(double seconds_on_lambda);
  void save_solutions(StateWriter& out) const;
  void restore_solutions(StateReader& in, const LassoConfig& config, std::uint32_t features);
  void save_spent(StateWriter& out) const;
  void restore_spent(StateReader& in);

 private:
  LassoRun run_;
  std::vector<double> lambdas_;
  std::size_t index_ = 0;
  Penalty penalty_;
  Clock::time_point began_;
  Spent before_;  // at the start of this λ
};

}  // namespace gyre::lasso
