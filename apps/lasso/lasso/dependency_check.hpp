// apps/lasso/lasso/dependency_check.hpp — STRADS's dependency check: keep only candidates nearly uncorrelated with what is already in flight.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "gyre/data/regression.hpp"
#include "lasso/column_stats.hpp"

namespace gyre::lasso {

// Coordinates updated together (in one round, or in rounds still in flight) each step against a
// residual that misses the others' steps; for correlated columns those steps overshoot. So a
// candidate is dropped when |corr(x̃_j, x̃_k)| ≥ ρ for some coordinate k already kept or in flight.
//
// The correlations come from column inner products computed from the data the first time a
// column is looked at and cached: for column j, its list of partners k with |corr| ≥ ρ. The
// inner products are summed over the rows the two columns share (walking the rows of j's
// non-zeros), so a column costs Σ over its rows of the row's non-zeros, once. Two sparse columns
// that share no row have centred correlation −n·μ_j·μ_k/‖x̃_j‖‖x̃_k‖, which only a dense-ish
// pair can make large; such pairs are treated as uncorrelated.
class DependencyCheck {
 public:
  // `rows` and `columns` are the whole data set, by row and by column; both must outlive this.
  // ρ ≥ 1 turns the check off (nothing is computed). `threads`: for computing a batch of lists.
  DependencyCheck(const data::RegressionSet& rows, const data::ColumnMatrix& columns, const ColumnStats& stats,
                  double rho, int threads);
  ~DependencyCheck();

  bool enabled() const noexcept { return rho_ < 1; }

  // The candidates to keep, in order: each must not be correlated with `busy[k] != 0`
  // coordinates nor with a candidate kept before it. Kept ones are marked in `busy`.
  std::vector<std::uint32_t> keep(std::span<const std::uint32_t> candidates, std::vector<std::uint8_t>& busy);

  // Pairs computed so far (for reports): columns whose list is cached, and partners over all.
  std::uint64_t cached_columns() const noexcept { return cached_; }
  std::uint64_t cached_partners() const noexcept { return partners_; }

 private:
  void compute(std::span<const std::uint32_t> columns);

  const data::RegressionSet& rows_;
  const data::ColumnMatrix& columns_;
  const ColumnStats& stats_;
  double rho_;
  int threads_;
  std::vector<std::vector<std::uint32_t>> partners_of_;
  std::vector<std::uint8_t> computed_;
  std::uint64_t cached_ = 0, partners_ = 0;
};

}  // namespace gyre::lasso
