// apps/lasso/lasso/logistic_stepper.hpp — one logistic coordinate step from its sums, along the column or the column centred by its weighted mean: what the scheduler and a cycling worker both take.
#pragma once

#include <cstdint>
#include <vector>

#include "gyre/data/regression.hpp"
#include "lasso/column_stats.hpp"
#include "lasso/logistic.hpp"
#include "lasso/penalty.hpp"

namespace gyre::lasso {

// Coordinate descent over uncentred columns with an intercept crawls when a column's mean
// dwarfs its spread (ages, lab values): the column and the intercept are nearly collinear, and
// each can only move a little while the other stays. glmnet centres such columns by their
// weighted mean in each Newton (IRLS) step. Here a centred column steps along d = x_j − c·1, c =
// Σ_i x_ij w_i / Σ_i w_i, and the intercept moves by −c·Δβ_j with it: d is w-orthogonal to the
// intercept, so the pair is decoupled to second order, and the curvature along d is the Schur
// complement Σx²w − (Σxw)²/Σw. It needs a third sum per coordinate and the totals Σ(p − y) and
// Σw over every row; sparse columns with small means are left uncentred, so their steps never
// touch every row. A column is centred when cos(x_j, 1) > 1/2 (|mean| > spread/√3), and only
// with an intercept.
class LogisticStepper {
 public:
  LogisticStepper(const ColumnStats& stats, bool intercept);

  const ColumnStats& stats() const noexcept { return stats_; }
  bool centred(std::uint32_t j) const noexcept { return centred_[j] != 0; }

  struct Sums {
    double gradient = 0;   // Σ_i x_ij(p_i − y_i)
    double curvature = 0;  // Σ_i x_ij² w_i, w = p(1 − p)
    double moment = 0;     // Σ_i x_ij w_i (centred columns only)
  };
  struct Totals {
    double residual = 0;  // Σ_i (p_i − y_i)
    double weight = 0;    // Σ_i w_i
  };
  struct Move {
    double gamma = 0;     // the coordinate's new value (fit coordinates)
    double decrease = 0;  // F's decrease, to second order
    double centre = 0;    // c: the intercept moves by −c·Δβ (0 for an uncentred step)
  };
  // The sums along column j centred by its weighted mean c = moment/Σw (the Schur complement:
  // gradient − c·Σ(p − y), curvature − c·moment), when centred(j) and `totals` is given; else
  // the sums as they are, c = 0.
  struct Centred {
    double gradient = 0, curvature = 0, centre = 0;
  };
  Centred centre(std::uint32_t j, const Sums& sums, const Totals* totals) const noexcept;
  // logistic_step() along column j, centred as centre() centres it.
  Move step(std::uint32_t j, double gamma, const Sums& sums, const Totals* totals, const Penalty& penalty) const;
  // The step from the last check's uncentred sums (for priorities).
  double uncentred_step(std::uint32_t j, double gamma, double gradient, double curvature,
                        const Penalty& penalty) const;

 private:
  const ColumnStats& stats_;
  std::vector<StepBounds> bounds_;
  std::vector<std::uint8_t> centred_;
};

}  // namespace gyre::lasso
