// apps/lasso/column_stats.cpp — column means, spreads and curvatures from the column copy of X.
#include "lasso/column_stats.hpp"

#include <cmath>
#include <numeric>

namespace gyre::lasso {

double response_offset(const data::RegressionSet& set, bool intercept) {
  if (!intercept || set.samples() == 0) return 0.0;
  return std::accumulate(set.y.begin(), set.y.end(), 0.0) / static_cast<double>(set.samples());
}

ColumnStats compute_column_stats(const data::RegressionSet& set, const data::ColumnMatrix& columns, bool intercept,
                                 bool standardize) {
  ColumnStats stats;
  const std::uint64_t n = set.samples();
  const double dn = static_cast<double>(n);
  const std::uint32_t m = columns.features();
  stats.samples = n;
  stats.y_offset = response_offset(set, intercept);
  stats.mean.assign(m, 0.0);
  stats.scale.assign(m, 1.0);
  stats.curvature.assign(m, 0.0);
  stats.usable.assign(m, 0);
  for (std::uint32_t j = 0; j < m; ++j) {
    const std::uint64_t begin = columns.col_begin[j], end = columns.col_begin[j + 1];
    double mu = 0;
    if (intercept) {
      for (std::uint64_t e = begin; e < end; ++e) mu += columns.values[e];
      mu /= dn;
    }
    // Σ(x − μ)² over the non-zeros, plus the implicit zeros' (0 − μ)².
    double centred = static_cast<double>(n - (end - begin)) * mu * mu;
    for (std::uint64_t e = begin; e < end; ++e) centred += (columns.values[e] - mu) * (columns.values[e] - mu);
    const double spread = std::sqrt(centred / dn);
    stats.mean[j] = mu;
    // A column of one constant value (or all zeros) carries nothing the intercept does not.
    if (!(centred > 1e-300) || !(spread > 1e-150)) continue;
    stats.usable[j] = 1;
    stats.scale[j] = standardize ? spread : 1.0;
    stats.curvature[j] = centred / dn / (stats.scale[j] * stats.scale[j]);
  }
  return stats;
}

}  // namespace gyre::lasso
