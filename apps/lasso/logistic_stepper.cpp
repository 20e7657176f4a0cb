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

LogisticStepper::Move LogisticStepper::step(std::uint32_t j, double gamma, const Sums& sums, const Totals* totals,
                                            const Penalty& penalty) const {
  const double n = static_cast<double>(stats_.samples), s = stats_.scale[j];
  double gradient = sums.gradient, curvature = sums.curvature, centre = 0;
  StepBounds bounds = bounds_[j];
  if (centred_[j] && totals && totals->weight > 0) {
    const ColumnRange& r = ranges_[j];
    centre = sums.moment / totals->weight;
    gradient -= centre * totals->residual;
    curvature = std::max(0.0, curvature - centre * sums.moment);
    bounds.curvature_cap = std::max(0.0, r.square - 2 * centre * r.sum + n * centre * centre) / (4 * n * s * s);
    bounds.largest_entry = std::max(std::abs(r.high - centre), std::abs(r.low - centre)) / s;
  }
  const double next = logistic_step(gamma, gradient, curvature, s, stats_.samples, bounds, penalty);
  const double delta = next - gamma;
  return {next, 0.5 * curvature / (n * s * s) * delta * delta, centre};
}

double LogisticStepper::uncentred_step(std::uint32_t j, double gamma, double gradient, double curvature,
                                       const Penalty& penalty) const {
  return logistic_step(gamma, gradient, curvature, stats_.scale[j], stats_.samples, bounds_[j], penalty) - gamma;
}

}  // namespace gyre::lasso
