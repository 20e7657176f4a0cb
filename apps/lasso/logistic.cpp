// apps/lasso/logistic.cpp — stable logistic terms, the safeguarded coordinate step and the dual point of the gap.
#include "lasso/logistic.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace gyre::lasso {
namespace {

double x_log_x(double x) noexcept { return x > 0 ? x * std::log(x) : 0.0; }

// ψ(t) = (e^t − t − 1)/t², increasing from 1/2; the series keeps small t free of cancellation.
double growth(double t) noexcept {
  if (t < 1e-3) return 0.5 + t * (1.0 / 6 + t * (1.0 / 24 + t / 120));
  if (t > 700) return std::numeric_limits<double>::infinity();
  return (std::expm1(t) - t) / (t * t);
}

// An upper bound on F's change when γ moves by Δ (see logistic_step()).
struct StepModel {
  double gamma, g, h;
  StepBounds bounds;
  Penalty penalty;

  double change_bound(double delta) const noexcept {
    if (delta == 0) return 0;
    const double along = h > 0 ? h * growth(bounds.largest_entry * std::abs(delta)) : 0.0;
    const double curvature = std::min(along, 0.5 * bounds.curvature_cap);
    return g * delta + curvature * delta * delta + penalty.value(gamma + delta) - penalty.value(gamma);
  }
};

// The pieces of the dual point that come from the folded check: κ, A and |ĝ_j| (header comment).
struct DualParts {
  double shift = 0;
  double entropy_slope = 0;    // A
  std::vector<double> reach;   // |ĝ_j|, 0 for columns that are not usable
};

DualParts dual_parts(const LogisticShardCheck& total, const ColumnStats& stats, bool intercept) {
  const std::uint32_t p = stats.features();
  const double n = static_cast<double>(stats.samples);
  DualParts out;
  if (intercept) {
    const double residual_sum = -total.sums[2 * std::size_t{p}];  // Σ(y − p)
    const double room = residual_sum >= 0 ? total.with_not_p[p] : total.with_p[p];
    if (room > 0) out.shift = std::clamp(residual_sum / room, -1.0, 1.0);
  }
  const std::vector<double>& recalibrated = out.shift >= 0 ? total.with_not_p : total.with_p;
  out.reach.assign(p, 0.0);
  for (std::uint32_t j = 0; j < p; ++j)
    if (stats.usable[j])
      out.reach[j] = std::abs(-total.sums[2 * std::size_t{j}] - out.shift * recalibrated[j]) / (n * stats.scale[j]);
  out.entropy_slope = std::max(0.0, -(1 - std::abs(out.shift)) * total.entropy / n);
  return out;
}

// The s ∈ [0, 1] that maximises φ(s) = A·s − Σ_j (s·a_j − λα)₊²/(2λ(1−α)); for α = 1 the
// largest s with s·a_j ≤ λ. φ′ is piecewise linear and decreasing, with a kink where each
// coordinate's conjugate starts to count (s = λα/a_j): walk the kinks in order to its root.
double best_scale(const DualParts& parts, const Penalty& penalty) {
  const double l1 = penalty.l1(), l2 = penalty.l2();
  if (l2 == 0) {
    double widest = 0;
    for (const double a : parts.reach) widest = std::max(widest, a);
    return widest > l1 ? l1 / widest : 1.0;
  }
  std::vector<double> reach;
  for (const double a : parts.reach)
    if (a > 0) reach.push_back(a);
  std::sort(reach.begin(), reach.end(), std::greater<>{});  // kinks l1/a ascending
  const double slope = parts.entropy_slope;
  double square = 0, linear = 0;  // Σ a² and Σ a·λα over the coordinates counting so far
  auto root = [&](double upper) { return square > 0 ? std::min(upper, (slope * l2 + linear) / square) : upper; };
  for (const double a : reach) {
    const double kink = l1 / a;
    if (kink >= 1) break;
    if (slope - (kink * square - linear) / l2 <= 0) return std::max(0.0, root(kink));
    square += a * a;
    linear += a * l1;
  }
  if (slope - (square - linear) / l2 <= 0) return std::max(0.0, root(1.0));
  return 1.0;
}

}  // namespace

double sigmoid(double margin) noexcept {
  if (margin >= 0) return 1 / (1 + std::exp(-margin));
  const double e = std::exp(margin);
  return e / (1 + e);
}

Sigmoids sigmoids(double margin) noexcept {
  // sigmoid(m) and sigmoid(−m) take the same e = exp(−|m|), one as 1/(1 + e), the other e/(1 + e).
  const double e = std::exp(-std::abs(margin)), near_one = 1 / (1 + e), near_zero = e / (1 + e);
  return margin >= 0 ? Sigmoids{near_one, near_zero} : Sigmoids{near_zero, near_one};
}

double softplus(double margin) noexcept { return std::max(margin, 0.0) + std::log1p(std::exp(-std::abs(margin))); }

double logistic_loss(double margin, double y) noexcept { return y > 0.5 ? softplus(-margin) : softplus(margin); }

double negative_entropy(double q, double not_q) noexcept { return x_log_x(q) + x_log_x(not_q); }

void add_check(LogisticShardCheck& total, const LogisticShardCheck& part) {
  if (total.sums.empty()) {
    total = part;
    return;
  }
  for (std::size_t k = 0; k < part.sums.size(); ++k) total.sums[k] += part.sums[k];
  for (std::size_t k = 0; k < part.with_p.size(); ++k) {
    total.with_p[k] += part.with_p[k];
    total.with_not_p[k] += part.with_not_p[k];
  }
  total.loss += part.loss;
  total.entropy += part.entropy;
}

std::size_t logistic_check_size(std::uint32_t features) noexcept { return 4 * (std::size_t{features} + 1) + 2; }

std::vector<double> logistic_check_sums(const LogisticShardCheck& check) {
  std::vector<double> out;
  out.reserve(check.sums.size() + check.with_p.size() + check.with_not_p.size() + 2);
  out.insert(out.end(), check.sums.begin(), check.sums.end());
  out.insert(out.end(), check.with_p.begin(), check.with_p.end());
  out.insert(out.end(), check.with_not_p.begin(), check.with_not_p.end());
  out.push_back(check.loss);
  out.push_back(check.entropy);
  return out;
}

LogisticShardCheck logistic_check_from_sums(std::span<const double> sums, std::uint32_t features) {
  if (sums.size() != logistic_check_size(features))
    throw std::invalid_argument("a logistic check of " + std::to_string(features) + " features has " +
                                std::to_string(logistic_check_size(features)) + " sums, not " +
                                std::to_string(sums.size()));
  const std::size_t width = std::size_t{features} + 1;
  LogisticShardCheck out;
  auto at = sums.begin();
  out.sums.assign(at, at + 2 * width);
  at += 2 * width;
  out.with_p.assign(at, at + width);
  at += width;
  out.with_not_p.assign(at, at + width);
  at += width;
  out.loss = at[0];
  out.entropy = at[1];
  return out;
}

std::vector<StepBounds> step_bounds(const ColumnStats& stats) {
  const std::uint32_t p = stats.features();
  const double n = static_cast<double>(stats.samples);
  std::vector<StepBounds> out(std::size_t{p} + 1);
  for (std::uint32_t j = 0; j < p; ++j) {
    if (!stats.usable[j]) continue;
    const double s = stats.scale[j];
    // The largest |x_ij| over the non-zeros: the extent's ends (an implicit zero is smaller).
    const double largest = std::max(std::abs(stats.low[j]), std::abs(stats.high[j]));
    out[j] = {stats.square[j] / (4 * n * s * s), largest / s};
  }
  out[p] = {0.25, 1.0};
  return out;
}

double logistic_step(double gamma, double raw_gradient, double raw_curvature, double scale, std::uint64_t samples,
                     const StepBounds& bounds, const Penalty& penalty) noexcept {
  if (!(bounds.curvature_cap > 0)) return gamma;
  const double n = static_cast<double>(samples);
  const StepModel model{gamma, raw_gradient / (n * scale), raw_curvature / (n * scale * scale), bounds, penalty};
  // coordinate_minimiser() takes the negative gradient, as Lasso's x̃ᵀr̃/n is.
  const double majorised = coordinate_minimiser(gamma, -model.g, bounds.curvature_cap, penalty);
  const double safe_bound = model.change_bound(majorised - gamma);
  if (!(model.h + penalty.l2() > 0)) return majorised;
  double delta = coordinate_minimiser(gamma, -model.g, model.h, penalty) - gamma;
  for (int halvings = 0; halvings < 64 && delta != 0; ++halvings, delta *= 0.5)
    if (model.change_bound(delta) <= safe_bound) return gamma + delta;
  return majorised;
}

double intercept_step(double intercept, double raw_gradient, double raw_curvature, std::uint64_t samples) noexcept {
  return logistic_step(intercept, raw_gradient, raw_curvature, 1.0, samples, StepBounds{0.25, 1.0}, Penalty{0, 1});
}

LogisticDualPoint logistic_dual_point(const LogisticShardCheck& total, const ColumnStats& stats, bool intercept,
                                      const Penalty& penalty) {
  const DualParts parts = dual_parts(total, stats, intercept);
  return {best_scale(parts, penalty), parts.shift};
}

std::span<const double> refinement_scales() noexcept {
  static const std::vector<double> scales = [] {
    std::vector<double> out{1};
    for (int k = 1; k <= 52; ++k) out.push_back(1 - std::ldexp(1.0, -k));
    return out;
  }();
  return scales;
}

double logistic_bound_slack(const LogisticShardCheck& total, const ColumnStats& stats, bool intercept,
                            const Penalty& penalty) {
  const DualParts parts = dual_parts(total, stats, intercept);
  // For α = 1 a scale s is feasible only where s·|ĝ_j| ≤ λ for every j. Far from the optimum
  // (at β = 0 for λ below λ_max/2) none of the grid's is, and a refinement's pass (53 entropies
  // a row) would remove nothing: on 100k × 100k rows at 0.1·λ_max it was 18% of the time from
  // the end of parsing to the first Newton step.
  if (penalty.l2() == 0) {
    const double widest = parts.reach.empty() ? 0.0 : *std::max_element(parts.reach.begin(), parts.reach.end());
    const std::span<const double> scales = refinement_scales();
    if (*std::min_element(scales.begin(), scales.end()) * widest > penalty.l1()) return 0;
  }
  return (1 - best_scale(parts, penalty)) * parts.entropy_slope;
}

Certificate refine_logistic(const Certificate& bounded, const LogisticShardCheck& total, const ColumnStats& stats,
                            bool intercept, const Penalty& penalty, std::span<const double> entropy_sums) {
  const DualParts parts = dual_parts(total, stats, intercept);
  const double n = static_cast<double>(stats.samples);
  const std::span<const double> scales = refinement_scales();
  Certificate out = bounded;
  for (std::size_t k = 0; k < scales.size() && k < entropy_sums.size(); ++k) {
    double conjugates = 0;
    bool feasible = true;
    for (const double a : parts.reach) {
      const double over = scales[k] * a - penalty.l1();
      if (over <= 0) continue;
      if (penalty.l2() == 0) {
        feasible = false;
        break;
      }
      conjugates += over * over / (2 * penalty.l2());
    }
    if (feasible) out.duality_gap = std::min(out.duality_gap, bounded.objective - (-entropy_sums[k] / n - conjugates));
  }
  return out;
}

Certificate certify_logistic(std::span<const double> gamma, const LogisticShardCheck& total, const ColumnStats& stats,
                             bool intercept, const Penalty& penalty, std::optional<double> dual_sum) {
  const std::uint32_t p = stats.features();
  const double n = static_cast<double>(stats.samples);
  const DualParts parts = dual_parts(total, stats, intercept);
  const double scale = best_scale(parts, penalty);
  Certificate c;
  double penalties = 0, conjugates = 0;
  for (std::uint32_t j = 0; j < p; ++j) {
    penalties += penalty.value(gamma[j]);
    if (!stats.usable[j]) continue;
    const double gradient = -total.sums[2 * std::size_t{j}] / (n * stats.scale[j]);
    c.kkt_violation = std::max(c.kkt_violation, kkt_violation(gamma[j], gradient, penalty));
    // For α = 1 the scale keeps every |s·ĝ_j| ≤ λ, where the conjugate is 0.
    if (penalty.l2() > 0) {
      const double over = std::max(0.0, scale * parts.reach[j] - penalty.l1());
      conjugates += over * over / (2 * penalty.l2());
    }
  }
  if (intercept) c.kkt_violation = std::max(c.kkt_violation, std::abs(total.sums[2 * std::size_t{p}]) / n);
  c.objective = total.loss / n + penalties;
  const double entropy_part = dual_sum ? -*dual_sum / n : scale * parts.entropy_slope;
  c.duality_gap = c.objective - (entropy_part - conjugates);
  return c;
}

}  // namespace gyre::lasso
