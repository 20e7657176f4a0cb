// apps/lasso/column_stats.cpp — column means, spreads and curvatures, read from X's rows.
#include "lasso/column_stats.hpp"

#include <cmath>
#include <numeric>

namespace gyre::lasso {

double response_offset(const data::RegressionSet& set, bool intercept) {
  if (!intercept || set.samples() == 0) return 0.0;
  return std::accumulate(set.y.begin(), set.y.end(), 0.0) / static_cast<double>(set.samples());
}

ColumnStats compute_column_stats(const data::RegressionSet& set, bool intercept, bool standardize) {
  ColumnStats stats;
  const std::uint64_t n = set.samples();
  const double dn = static_cast<double>(n);
  const std::uint32_t m = set.features;
  stats.samples = n;
  stats.y_offset = response_offset(set, intercept);
  stats.mean.assign(m, 0.0);
  stats.scale.assign(m, 1.0);
  stats.curvature.assign(m, 0.0);
  stats.usable.assign(m, 0);
  // Two passes over the rows, each column's sums taken in row order (as a column copy would
  // hold them), so no column copy is needed.
  std::vector<std::uint64_t> count(m, 0);
  for (std::uint64_t e = 0; e < set.cols.size(); ++e) {
    ++count[set.cols[e]];
    if (intercept) stats.mean[set.cols[e]] += set.values[e];
  }
  // Σ(x − μ)² over the non-zeros, plus the implicit zeros' (0 − μ)².
  std::vector<double> centred(m);
  for (std::uint32_t j = 0; j < m; ++j) {
    if (intercept) stats.mean[j] /= dn;
    centred[j] = static_cast<double>(n - count[j]) * stats.mean[j] * stats.mean[j];
  }
  for (std::uint64_t e = 0; e < set.cols.size(); ++e) {
    const double d = set.values[e] - stats.mean[set.cols[e]];
    centred[set.cols[e]] += d * d;
  }
  for (std::uint32_t j = 0; j < m; ++j) {
    const double spread = std::sqrt(centred[j] / dn);
    // A column of one constant value (or all zeros) carries nothing the intercept does not.
    if (!(centred[j] > 1e-300) || !(spread > 1e-150)) continue;
    stats.usable[j] = 1;
    stats.scale[j] = standardize ? spread : 1.0;
    stats.curvature[j] = centred[j] / dn / (stats.scale[j] * stats.scale[j]);
  }
  return stats;
}

}  // namespace gyre::lasso
