// gyre/data/column_matrix.hpp — a regression set's X by column (CSC), copied from its rows on T threads.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "gyre/data/regression.hpp"

namespace gyre::data {

// X by column (CSC), for coordinate descent, which walks one feature's non-zeros at a time:
// column j is rows/values[col_begin[j] .. col_begin[j+1]), rows increasing; rows index the
// samples of the set it was built from (0..samples()-1), not sample ids.
struct ColumnMatrix {
  std::vector<std::uint64_t> col_begin{0};  // size features+1
  std::vector<std::uint32_t> rows;
  std::vector<double> values;
  std::uint64_t samples = 0;

  std::uint32_t features() const noexcept { return static_cast<std::uint32_t>(col_begin.size() - 1); }
};

// A counting sort, O(nnz + features); throws std::invalid_argument past 2^32 - 1 samples.
// With threads > 1 it runs as TBB tasks in the calling arena (which caps how many run at once)
// on up to `threads` ranges of rows, fewer when the rows hold few entries; the matrix is the
// same for every thread count.
ColumnMatrix to_columns(const RegressionSet& set, std::size_t threads = 1);
// The same for the listed rows only (increasing sample indices of `set`); row r of the result
// is set's row rows[r].
ColumnMatrix to_columns(const RegressionSet& set, std::span<const std::uint32_t> rows, std::size_t threads = 1);

}  // namespace gyre::data
