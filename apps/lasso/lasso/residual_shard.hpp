// apps/lasso/lasso/residual_shard.hpp — a worker's rows and their residual: the push side of the Lasso rounds.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "gyre/data/regression.hpp"
#include "gyre/rounds/scheduling.hpp"
#include "gyre/rounds/rounds_protocol.hpp"
#include "lasso/column_stats.hpp"
#include "lasso/active_set_cycle.hpp"
#include "lasso/checkpoint.hpp"
#include "lasso/penalty.hpp"
#include "lasso/row_parts.hpp"

namespace gyre::lasso {

// What a Lasso round asks a worker for (rounds::Task::kind); what the sums are depends on
// the loss (here for least squares; MarginShard::push for the logistic loss).
enum class RoundKind : std::uint8_t {
  kPartials = 0,  // x_jᵀr for the task's features
  kCheck = 1,     // every feature's x_jᵀr, then Σ(r−m)² and Σ(r−m)(y−ȳ), m = the task's scalar
  kDual = 2,      // logistic only: exact dual values of the last check's iterate (LossModel::refinement)
  kCentredPartials = 3,  // logistic only: kPartials and each column's weighted moment
  kCycle = 4,     // squared, one worker holding every row: coordinate descent over the task's
                  // features at λ = the task's scalar, run on the worker (ResidualShard::cycle)
  kSnapshot = 5,  // write this worker's checkpoint part (number: the task's scalar), answer one 0
  // Queries (RoundsDriver::ask), for the dependency check: the shard's inner products.
  kGramQuery = 6,    // sampled Gram columns of the task's features
  kSharedQuery = 7,  // shared-row products of the candidates (the first `scalar` ids) with the rest
};
inline constexpr std::uint8_t kRoundKinds = 8;
inline constexpr rounds::InnerProductKinds kInnerProductKinds{static_cast<std::uint8_t>(RoundKind::kGramQuery),
                                                                 static_cast<std::uint8_t>(RoundKind::kSharedQuery)};

// What one pass over every column of the shard sums (all over this shard's rows only).
struct ShardCheck {
  std::vector<double> raw_gradient;  // x_jᵀr for every feature
  double centred_rss = 0;            // Σ (r_i − m)²
  double centred_dot_y = 0;          // Σ (r_i − m)·(y_i − y_offset)
};

// What a worker holding every row needs to run coordinate descent cycles itself (RoundKind::
// kCycle): the scheduler's column statistics, α, and the tolerance it certifies against.
struct CycleSettings {
  const ColumnStats* stats = nullptr;
  double alpha = 1;
  double tol = 1e-7;
  std::uint64_t max_sweeps = 1000;  // per cycle; the scheduler's check decides what follows
};

// The shard's rows split further into `threads` parts (RowParts), each with its own column copy
// and residual, so T tasks update residuals and sum partials with no two touching one row. Sums
// over the parts are added in part order: a fixed (seed, P, T) gives the same bits every run.
class ResidualShard {
 public:
  // Starts at β = 0: r = y − y_offset. The rows in `parts` parts, on `threads` threads (at least
  // parts; RowParts).
  ResidualShard(const data::RegressionSet& rows, double y_offset, int parts, int threads);
  ResidualShard(const data::RegressionSet& rows, double y_offset, int threads)
      : ResidualShard(rows, y_offset, threads, threads) {}
  ~ResidualShard();

  std::uint64_t samples() const noexcept { return rows_.samples(); }
  std::uint32_t features() const noexcept { return rows_.features(); }

  // r −= x_j·Δβ_j for each step (Δβ_j on the original scale).
  void apply(std::span<const rounds::Step> steps);
  // x_jᵀr for each listed feature, into `out` (same size).
  void partial_gradients(std::span<const std::uint32_t> features, std::span<double> out);
  // Every column's x_jᵀr and the residual's sums about `residual_mean` (exact, recomputed).
  ShardCheck check(double residual_mean);
  // From here on the shard follows the coefficients (fit coordinates γ, from the steps it
  // applies) so that it can run cycles. Only for a shard holding every row.
  void enable_cycles(const CycleSettings& settings);
  // Cyclic coordinate descent (Gauss–Seidel, exact: every row is here) over `active` at λ,
  // glmnet's active-set cycle (active_set_cycle()), until a sweep's largest decrease of F is
  // below tol·F(0)/(10·|active|) (tighter when the same λ comes back, CycleTolerance) or
  // max_sweeps. The residual moves with every step. Returns each active
  // coordinate's new γ, then the number of coordinate updates.
  std::vector<double> cycle(double lambda, std::span<const std::uint32_t> active);
  // A round's sums (RoundKind), for the rounds engine.
  std::vector<double> push(const rounds::Task& task);

  // Checkpoints: the residual of every part (and, with cycles, the coefficients the shard
  // follows and its cycle depth). restore() reads them into a shard built from the same rows
  // with the same parts (the same --threads), and throws InputError naming the part otherwise.
  void save(StateWriter& out) const;
  void restore(StateReader& in);

 private:
  struct Part {
    std::vector<double> y;         // y − y_offset
    std::vector<double> residual;
    // take_if_lower()'s scratch: the residual's proposed change on the rows `touched` (marked).
    std::vector<double> change;
    std::vector<std::uint8_t> marked;
    std::vector<std::uint32_t> touched;
  };

  // Moves `coordinates` to `next` (fit coordinates γ, same order) if that lowers F at the
  // penalty, with the residual: an extrapolated point is taken only as a descent. Whether it did.
  bool take_if_lower(std::span<const std::uint32_t> coordinates, std::span<const double> next, const Penalty& penalty);

  RowParts rows_;
  std::vector<Part> parts_;  // the state of rows_'s parts, same index
  // With cycles enabled.
  CycleSettings cycles_;
  CycleTolerance depth_;
  std::vector<double> gamma_;
  double mu_dot_beta_ = 0;  // μᵀβ: the residual's mean is −μᵀβ
  double null_objective_ = 0;  // F at β = 0: Σ(y − ȳ)²/(2n)
};

}  // namespace gyre::lasso
