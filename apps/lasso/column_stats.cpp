// apps/lasso/column_stats.cpp — column means, spreads, curvatures and extents: each shard's sums about its own mean, joined in shard order.
#include "lasso/column_stats.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

namespace gyre::lasso {

ShardColumnSums shard_column_sums(const data::RegressionSet& shard) {
  ShardColumnSums out;
  const std::uint32_t m = shard.features;
  const std::uint64_t n = shard.samples();
  out.samples = n;
  out.y_sum = std::accumulate(shard.y.begin(), shard.y.end(), 0.0);
  out.count.assign(m, 0);
  out.sum.assign(m, 0.0);
  out.centred.assign(m, 0.0);
  out.square.assign(m, 0.0);
  out.low.assign(m, 0.0);
  out.high.assign(m, 0.0);
  // Two passes over the rows, each column's sums taken in row order (as a column copy would
  // hold them), so no column copy is needed.
  for (std::uint64_t e = 0; e < shard.cols.size(); ++e) {
    const std::uint32_t j = shard.cols[e];
    const double x = shard.values[e];
    out.low[j] = out.count[j] ? std::min(out.low[j], x) : x;
    out.high[j] = out.count[j]++ ? std::max(out.high[j], x) : x;
    out.sum[j] += x;
    out.square[j] += x * x;
  }
  if (n == 0) return out;
  const double dn = static_cast<double>(n);
  std::vector<double> mean(m);
  for (std::uint32_t j = 0; j < m; ++j) {
    mean[j] = out.sum[j] / dn;
    // The implicit zeros: (0 − x̄)² each, and 0 within the extent.
    out.centred[j] = static_cast<double>(n - out.count[j]) * mean[j] * mean[j];
    if (out.count[j] < n) out.low[j] = std::min(out.low[j], 0.0), out.high[j] = std::max(out.high[j], 0.0);
  }
  for (std::uint64_t e = 0; e < shard.cols.size(); ++e) {
    const double d = shard.values[e] - mean[shard.cols[e]];
    out.centred[shard.cols[e]] += d * d;
  }
  return out;
}

ColumnStats fold_column_stats(std::span<const ShardColumnSums> shards, bool intercept, bool standardize) {
  ColumnStats stats;
  if (shards.empty()) throw std::invalid_argument("column statistics of no shards");
  const std::uint32_t m = shards.front().features();
  std::uint64_t n = 0;
  double y_sum = 0;
  stats.mean.assign(m, 0.0);
  stats.square.assign(m, 0.0);
  stats.low.assign(m, 0.0);
  stats.high.assign(m, 0.0);
  std::vector<std::uint8_t> seen(m, 0);  // a shard with rows has given the extent
  for (const ShardColumnSums& s : shards) {
    if (s.features() != m || s.count.size() != m || s.centred.size() != m || s.square.size() != m ||
        s.low.size() != m || s.high.size() != m)
      throw std::invalid_argument("column statistics of shards that disagree on the features");
    n += s.samples;
    y_sum += s.y_sum;
    if (s.samples == 0) continue;
    for (std::uint32_t j = 0; j < m; ++j) {
      stats.mean[j] += s.sum[j];
      stats.square[j] += s.square[j];
      stats.low[j] = seen[j] ? std::min(stats.low[j], s.low[j]) : s.low[j];
      stats.high[j] = seen[j] ? std::max(stats.high[j], s.high[j]) : s.high[j];
      seen[j] = 1;
    }
  }
  const double dn = static_cast<double>(n);
  stats.samples = n;
  stats.y_offset = intercept && n > 0 ? y_sum / dn : 0.0;
  for (std::uint32_t j = 0; j < m; ++j) stats.mean[j] = intercept && n > 0 ? stats.mean[j] / dn : 0.0;
  // Σ over all rows of (x − μ)², each shard's about its own mean moved to μ: + n_s(x̄_s − μ)².
  std::vector<double> centred(m, 0.0);
  for (const ShardColumnSums& s : shards) {
    if (s.samples == 0) continue;
    const double ns = static_cast<double>(s.samples);
    for (std::uint32_t j = 0; j < m; ++j) {
      const double shift = s.sum[j] / ns - stats.mean[j];
      centred[j] += s.centred[j] + ns * shift * shift;
    }
  }
  stats.scale.assign(m, 1.0);
  stats.curvature.assign(m, 0.0);
  stats.usable.assign(m, 0);
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

ColumnStats compute_column_stats(const data::RegressionSet& set, bool intercept, bool standardize) {
  const ShardColumnSums sums[] = {shard_column_sums(set)};
  return fold_column_stats(sums, intercept, standardize);
}

}  // namespace gyre::lasso
