// apps/lasso/lasso/penalty.hpp — the elastic-net coordinate step, objective, duality gap and KKT violation.
#pragma once

#include <algorithm>
#include <cmath>
#include <span>

namespace gyre::lasso {

// λ·(α·|γ| + (1−α)/2·γ²) per coefficient, in the fit's (centred, scaled) coordinates.
struct Penalty {
  double lambda = 0;
  double alpha = 1;

  double l1() const noexcept { return lambda * alpha; }
  double l2() const noexcept { return lambda * (1 - alpha); }
  double value(double gamma) const noexcept { return l1() * std::abs(gamma) + 0.5 * l2() * gamma * gamma; }
};

inline double soft_threshold(double u, double t) noexcept {
  return u > t ? u - t : (u < -t ? u + t : 0.0);
}

// The exact minimiser over coordinate j alone: `gradient` is x̃_jᵀr̃/n at the current γ_j,
// `curvature` ‖x̃_j‖²/n.
inline double coordinate_minimiser(double gamma, double gradient, double curvature, const Penalty& p) noexcept {
  return soft_threshold(gradient + curvature * gamma, p.l1()) / (curvature + p.l2());
}

// How far coordinate j is from its optimality condition, in gradient units:
//   γ_j = 0: max(0, |g_j| − λα);   γ_j ≠ 0: |g_j − λ(1−α)γ_j − λα·sign γ_j|,
// with g_j = x̃_jᵀr̃/n. Zero at a solution.
inline double kkt_violation(double gamma, double gradient, const Penalty& p) noexcept {
  if (gamma == 0) return std::max(0.0, std::abs(gradient) - p.l1());
  const double z = gradient - p.l2() * gamma;
  return std::abs(z - (gamma > 0 ? p.l1() : -p.l1()));
}

// What a full pass over the exact gradient measures (all per sample, i.e. divided by n).
struct Certificate {
  double objective = 0;      // F = ‖r̃‖²/(2n) + Σ penalty
  double duality_gap = 0;    // F − D(θ) ≥ F − F* for the dual point θ scaled from r̃
  double kkt_violation = 0;  // max_j of kkt_violation()
};

// The dual point is r̃ scaled into the dual feasible set, as scikit-learn's coordinate descent
// does (its gap formula, divided by n). `rss` = ‖r̃‖²/n, `residual_dot_y` = r̃ᵀỹ/n,
// `gradients` the g_j of every usable coordinate (others 0).
Certificate certify(std::span<const double> gamma, std::span<const double> gradients, double rss, double residual_dot_y,
                    const Penalty& p);

// What certify() needs of the coefficients, gathered over some of them: workers that each hold
// some coordinates (the column models) add theirs and join the parts.
struct CoefficientSums {
  double l1_norm = 0, l2_norm = 0;  // Σ|γ_j|, Σγ_j²
  double dual_norm = 0;             // max_j |g_j − λ(1−α)γ_j|
  double kkt_violation = 0;         // max_j of kkt_violation()

  void add(double gamma, double gradient, const Penalty& p) noexcept {
    l1_norm += std::abs(gamma);
    l2_norm += gamma * gamma;
    dual_norm = std::max(dual_norm, std::abs(gradient - p.l2() * gamma));
    kkt_violation = std::max(kkt_violation, lasso::kkt_violation(gamma, gradient, p));
  }
  void join(const CoefficientSums& other) noexcept {
    l1_norm += other.l1_norm;
    l2_norm += other.l2_norm;
    dual_norm = std::max(dual_norm, other.dual_norm);
    kkt_violation = std::max(kkt_violation, other.kkt_violation);
  }
};
Certificate certify(const CoefficientSums& sums, double rss, double residual_dot_y, const Penalty& p);

}  // namespace gyre::lasso
