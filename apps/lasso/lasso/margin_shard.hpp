// apps/lasso/lasso/margin_shard.hpp — a worker's rows and their margins: the push side of sparse logistic regression's rounds.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "gyre/data/regression.hpp"
#include "lasso/active_set_cycle.hpp"
#include "lasso/checkpoint.hpp"
#include "lasso/logistic.hpp"
#include "lasso/logistic_stepper.hpp"
#include "lasso/residual_shard.hpp"
#include "lasso/row_parts.hpp"

namespace gyre::lasso {

// What a worker holding every row needs to run coordinate descent cycles itself (RoundKind::
// kCycle): the scheduler's steps (its statistics and column bounds), α, and the tolerance.
struct LogisticCycleSettings {
  const LogisticStepper* stepper = nullptr;
  double alpha = 1;
  double tol = 1e-7;
  std::uint64_t max_sweeps = 1000;
};

// The logistic counterpart of ResidualShard: the shard's rows in `threads` parts (RowParts),
// each part keeping its rows' margins m_i = b + x_iᵀβ and, recomputed only for the rows a step
// touches, p_i − y_i and p_i(1 − p_i) (p_i = σ(m_i)). Parameter ids 0..p−1 are the features, id
// p the intercept (a column of ones). Sums over the parts are added in part order: a fixed
// (P, T) gives the same bits every run. All sums are raw (original feature scale, not divided by
// n, this shard's rows only); logistic.hpp turns the folded sums into steps and certificates.
class MarginShard {
 public:
  // Starts at b = 0, β = 0. Labels must be 0 or 1 (data::binary_labels() makes them so);
  // anything else throws std::invalid_argument. The rows in `parts` parts on `threads` threads
  // (at least parts; RowParts).
  MarginShard(const data::RegressionSet& rows, int parts, int threads);
  MarginShard(const data::RegressionSet& rows, int threads) : MarginShard(rows, threads, threads) {}
  ~MarginShard();

  std::uint64_t samples() const noexcept { return rows_.samples(); }
  std::uint32_t features() const noexcept { return rows_.features(); }
  std::uint32_t intercept_id() const noexcept { return rows_.features(); }

  // m_i += x_ij·Δβ_j for each step (the intercept's: every row), then p_i, w_i of the rows touched.
  void apply(std::span<const rounds::Step> steps);
  // Two values per listed parameter into `out` (2× its size): Σ_i x_ij(p_i − y_i), Σ_i x_ij² w_i;
  // `with_moment`, three (3× its size): and Σ_i x_ij w_i, from which a step along the column
  // centred by its weighted mean follows. The intercept's are Σ_i (p_i − y_i), Σ_i w_i (twice).
  void partials(std::span<const std::uint32_t> params, std::span<double> out, bool with_moment = false);
  // Every parameter's two sums, the loss and what the dual point needs (LogisticShardCheck).
  LogisticShardCheck check();
  // Σ_i H(q_i) at the dual point (see logistic.hpp): finite, ≤ 0, saturated rows included.
  double dual_sum(const LogisticDualPoint& point);
  // The same at one shift and several scales, one pass over the rows.
  std::vector<double> dual_sums(double shift, std::span<const double> scales);
  // From here on the shard follows the coefficients (γ and b, from the steps it applies) so
  // that it can run cycles. Only for a shard holding every row.
  void enable_cycles(const LogisticCycleSettings& settings);
  // Proximal Newton steps as glmnet takes them (IRLS): coordinate descent over the features in
  // `params` (and the intercept, if its id is among them, once per sweep; centred columns as
  // LogisticStepper centres them) on the loss's quadratic model at the margins of now, as an
  // active_set_cycle(), then a line search on F along the model's step; repeated until a step
  // gains at most tol·log 2/(10·|params|) (tighter when the same λ comes back, CycleTolerance).
  // When the line search refuses the first step (rounding, near the optimum), the exact
  // coordinate steps of the rounds (LogisticStepper) take over, each safe by its own bound.
  // Returns each parameter's new value (γ, or b), then the number of coordinate updates.
  std::vector<double> cycle(double lambda, std::span<const std::uint32_t> params);
  // A round's sums (RoundKind: partials() without or with the moment, check() as
  // logistic_check_sums(), or dual_sums() at the task's scalar as the shift and the
  // refinement_scales()), for the rounds engine.
  std::vector<double> push(const rounds::Task& task);

  // Checkpoints: every part's margins with p − y and p(1 − p) (and, with cycles, the
  // coefficients and intercept the shard follows and its cycle depth); restore() reads them into
  // a shard built from the same rows with the same parts, else throws InputError naming the part.
  void save(StateWriter& out) const;
  void restore(StateReader& in);

 private:
  struct Part {
    std::vector<double> y;         // 0 or 1
    std::vector<double> margin;
    std::vector<double> residual;  // p − y: kept rather than p so that the smaller of p and 1 − p
                                   // is exact (−residual or residual) when a row saturates
    std::vector<double> weight;    // p(1 − p)
    std::vector<std::uint8_t> touched;
    std::vector<std::uint32_t> touched_rows;
    // A cycle's quadratic model, per row: its weight w, its gradient (p − y) + w·δ and the
    // margin's proposed change δ, side by side because a coordinate step reads and writes all
    // three for each of a column's rows: one cache line a row, not three. On 100k × 100k rows
    // at 0.1·λ_max, T = 1, the solve took 1.78-2.08 s against 1.95-2.30 s in separate arrays.
    struct ModelRow {
      double weight, gradient, change;
    };
    std::vector<ModelRow> model;
  };
  // p − y and p(1 − p) of row r from its margin.
  static void refresh_row(Part& part, std::size_t r) noexcept;
  // cycle()'s two ways: IRLS steps (whether one was taken), and exact coordinate steps.
  bool newton_steps(const Penalty& penalty, std::span<const std::uint32_t> params, double enough,
                    std::uint64_t& updates);
  void exact_steps(const Penalty& penalty, std::span<const std::uint32_t> params, double enough,
                   std::uint64_t& updates);
  void check_ids(std::span<const std::uint32_t> params) const;
  // apply()'s work on one part; every_row when a step is the intercept's.
  void apply_part(std::size_t part, std::span<const rounds::Step> steps, bool every_row);
  // Σ(p − y) and Σw over every row.
  LogisticStepper::Totals totals() const;
  // partials() over one part's rows.
  void part_partials(std::size_t part, std::span<const std::uint32_t> params, std::span<double> out,
                     bool with_moment) const;

  RowParts rows_;
  std::vector<Part> parts_;  // the state of rows_'s parts, same index
  // With cycles enabled.
  LogisticCycleSettings cycles_;
  CycleTolerance depth_;
  std::vector<double> gamma_;
  double b_ = 0;
};

}  // namespace gyre::lasso
