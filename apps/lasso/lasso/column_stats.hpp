// apps/lasso/lasso/column_stats.hpp — per-column centring and scaling, fixed at load, that turn raw x_jᵀr into the fit's gradient; made from each row shard's sums, so no process holds every row.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "gyre/data/regression.hpp"

namespace gyre::lasso {

// The solver works on coefficients γ_j = β_j·s_j of the centred (with an intercept) and scaled
// (with standardisation) columns x̃_j = (x_j − μ_j)/s_j, without ever forming x̃: workers keep
// the sparse raw residual r = (y − ȳ) − Xβ and return raw sums x_jᵀr, and the scheduler turns
// them into x̃_jᵀr̃ = (x_jᵀr − n·μ_j·m)/s_j, where m = −μᵀβ is the mean of r (see gradient()).
struct ColumnStats {
  std::uint64_t samples = 0;
  double y_offset = 0;               // ȳ with an intercept, else 0: workers start from r = y − y_offset
  std::vector<double> mean;          // μ_j, all 0 without an intercept
  std::vector<double> scale;         // s_j, all 1 without standardisation
  std::vector<double> curvature;     // ‖x̃_j‖²/n: the coordinate's second derivative
  std::vector<std::uint8_t> usable;  // 0 for a column with ‖x̃_j‖ = 0 (its coefficient stays 0)
  // The raw column's extent, for the logistic loss's step bounds: Σ_i x_ij², and the least and
  // greatest x_ij over every row (the implicit zeros included).
  std::vector<double> square, low, high;

  std::uint32_t features() const noexcept { return static_cast<std::uint32_t>(mean.size()); }
  // The fit's gradient coordinate x̃_jᵀr̃/n from the raw sum x_jᵀr and the residual mean m.
  double gradient(std::uint32_t j, double raw, double residual_mean) const noexcept {
    return (raw / static_cast<double>(samples) - mean[j] * residual_mean) / scale[j];
  }
};

// What one shard of rows contributes to the statistics: O(features), whatever its rows. Each
// column's sums are about the shard's own mean (Σ(x − x̄_shard)², the shard's implicit zeros
// included), which fold_column_stats joins about the whole mean (Chan, Golub and LeVeque's
// pairwise update), so a column with a large mean and a small spread keeps its digits.
struct ShardColumnSums {
  std::uint64_t samples = 0;
  double y_sum = 0;
  std::vector<std::uint64_t> count;  // non-zeros
  std::vector<double> sum, centred, square, low, high;

  std::uint32_t features() const noexcept { return static_cast<std::uint32_t>(sum.size()); }
};
ShardColumnSums shard_column_sums(const data::RegressionSet& shard);

// The statistics of the shards' rows together, their sums joined in shard order: the same bits
// wherever the shards are (threads or processes). One shard gives the statistics of its rows as
// a single pass about the mean would.
ColumnStats fold_column_stats(std::span<const ShardColumnSums> shards, bool intercept, bool standardize);

// The statistics of one set of rows (one shard).
ColumnStats compute_column_stats(const data::RegressionSet& set, bool intercept, bool standardize);

}  // namespace gyre::lasso
