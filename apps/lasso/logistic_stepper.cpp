// apps/lasso/logistic_stepper.cpp — column ranges for centred step bounds, and the safeguarded step along a (centred) column.
#include "lasso/logistic_stepper.hpp"

#include <algorithm>
#include <cmath>

namespace gyre::lasso {

LogisticStepper::LogisticStepper(const data::RegressionSet& rows, const ColumnStats& stats, bool intercept)
    : stats_(stats), bounds_(step_bounds(rows, stats)), ranges_(rows.features), centred_(stats.features(), 0) {
  // Each column's sums in row order; min and max start at 0 for the implicit zeros, which a
  // column with a non-zero in every row does not have.
  std::vector<std::uint64_t> count(rows.features, 0);
  for (std::uint64_t e = 0; e < rows.cols.size(); ++e) {
    ColumnRange& r = ranges_[rows.cols[e]];
    const double x = rows.values[e];
    r.low = count[rows.cols[e]] ? std::min(r.low, x) : x;
    r.high = count[rows.cols[e]]++ ? std::max(r.high, x) : x;
    r.sum += x;
    r.square += x * x;
  }
  for (std::uint32_t j = 0; j < rows.features; ++j) {
    ColumnRange& r = ranges_[j];
    if (count[j] < stats.samples) r.low = std::min(r.low, 0.0), r.high = std::max(r.high, 0.0);
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
    const ColumnRange& r = ranges_[j];
    const double c = along.centre;
    bounds.curvature_cap = std::max(0.0, r.square - 2 * c * r.sum + n * c * c) / (4 * n * s * s);
    bounds.largest_entry = std::max(std::abs(r.high - c), std::abs(r.low - c)) / s;
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
