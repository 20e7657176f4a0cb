// apps/lasso/logistic_stepper.cpp — column ranges for centred step bounds, and the safeguarded step along a (centred) column.
#include "lasso/logistic_stepper.hpp"

#include <algorithm>
#include <cmath>

namespace gyre::lasso {

LogisticStepper::LogisticStepper(const ColumnStats& stats, bool intercept)
    : stats_(stats), bounds_(step_bounds(stats)), centred_(stats.features(), 0) {
  for (std::uint32_t j = 0; j < stats.features(); ++j) {
    const double spread = std::sqrt(stats.curvature[j]) * stats.scale[j];
    centred_[j] = intercept && stats.usable[j] && std::abs(stats.mean[j]) * std::sqrt(3.0) > spread;
  }
}

LogisticStepper::Centred LogisticStepper::centre(std::uint32_t j, const Sums& sums,
                                                 const Totals* totals) const noexcept {
  if (!centred_[j] || !totals || !(totals->weight > 0)) return {sums.gradient, sums.curvature, 0};
  const double c = sums.moment / totals->weight;
  return {sums.gradient - c * totals->residual, std::max(0.0, sums.curvature - c * sums.moment), c};
}

LogisticStepper::Move LogisticStepper::step(std::uint32_t j, double gamma, const Sums& sums, const Totals* totals,
                                            const Penalty& penalty) const {
  const double n = static_cast<double>(stats_.samples), s = stats_.scale[j];
  const Centred along = centre(j, sums, totals);
  StepBounds bounds = bounds_[j];
  if (along.centre != 0) {
    // ‖x − c‖² = Σx² − 2cΣx + nc², Σx = nμ (μ is the mean here: centring needs an intercept).
    const double c = along.centre;
    const double sum = n * stats_.mean[j];
    bounds.curvature_cap = std::max(0.0, stats_.square[j] - 2 * c * sum + n * c * c) / (4 * n * s * s);
    bounds.largest_entry = std::max(std::abs(stats_.high[j] - c), std::abs(stats_.low[j] - c)) / s;
  }
  const double next = logistic_step(gamma, along.gradient, along.curvature, s, stats_.samples, bounds, penalty);
  const double delta = next - gamma;
  return {next, 0.5 * along.curvature / (n * s * s) * delta * delta, along.centre};
}

double LogisticStepper::uncentred_step(std::uint32_t j, double gamma, double gradient, double curvature,
                                       const Penalty& penalty) const {
  return logistic_step(gamma, gradient, curvature, stats_.scale[j], stats_.samples, bounds_[j], penalty) - gamma;
}

}  // namespace gyre::lasso
