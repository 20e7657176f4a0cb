// apps/lasso/lasso/column_stats.hpp — per-column centring and scaling, fixed at load, that turn raw x_jᵀr into the fit's gradient.
#pragma once

#include <cstdint>
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

  std::uint32_t features() const noexcept { return static_cast<std::uint32_t>(mean.size()); }
  // The fit's gradient coordinate x̃_jᵀr̃/n from the raw sum x_jᵀr and the residual mean m.
  double gradient(std::uint32_t j, double raw, double residual_mean) const noexcept {
    return (raw / static_cast<double>(samples) - mean[j] * residual_mean) / scale[j];
  }
};

// ȳ with an intercept, else 0: what workers subtract from y to start their residual.
double response_offset(const data::RegressionSet& set, bool intercept);

// Centred sums are accumulated about the mean (not as Σx² − nμ²), so a column with a large
// mean and a small spread keeps its digits. Read from the rows: no column copy is made.
ColumnStats compute_column_stats(const data::RegressionSet& set, bool intercept, bool standardize);

}  // namespace gyre::lasso
