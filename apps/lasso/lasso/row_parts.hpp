// apps/lasso/lasso/row_parts.hpp — a worker's rows dealt into `threads` parts, each with its own column copy, and one task per part.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <vector>

#include "gyre/data/column_matrix.hpp"
#include "gyre/data/regression.hpp"

namespace gyre::lasso {

// What the residual (Lasso) and margin (logistic) shards share: the rows split into parts so
// that T tasks touch disjoint rows, each part's columns built straight from the set (no copy of
// the rows), and a task arena of T threads so an embedder's own TBB work is not drawn in. The
// shards keep their per-row state in part-local arrays indexed like the part's columns.
class RowParts {
 public:
  // `parts` parts (at least 1) run on an arena of `threads` threads (at least parts): a
  // worker that walks its columns one coordinate at a time keeps one part, and lends its
  // threads to the passes over every column (for_each_block).
  RowParts(const data::RegressionSet& rows, int parts, int threads);
  ~RowParts();
  RowParts(const RowParts&) = delete;
  RowParts& operator=(const RowParts&) = delete;

  std::uint64_t samples() const noexcept { return samples_; }
  std::uint32_t features() const noexcept { return features_; }
  std::size_t size() const noexcept { return columns_.size(); }
  const data::ColumnMatrix& columns(std::size_t part) const { return columns_[part]; }
  // The set's row indices of a part, increasing: row r of the part is rows(part)[r] of the set.
  std::span<const std::uint32_t> rows(std::size_t part) const { return dealt_[part]; }

  // body(part index), one task per part; with a single part it runs on the calling thread.
  void for_each(const std::function<void(std::size_t)>& body);
  // body(begin, end) over [0, count) cut into one block a thread, as tasks of the arena; with
  // one thread a single call on the calling thread.
  void for_each_block(std::size_t count, const std::function<void(std::size_t, std::size_t)>& body);
  // Σ of block_sum(begin, end) over the same blocks, added in block order: with one thread the
  // single block's sum, as a loop on the calling thread would give it.
  double sum_blocks(std::size_t count, const std::function<double(std::size_t, std::size_t)>& block_sum);
  int threads() const noexcept { return threads_; }

  // A part's own partial sums: each task fills its part's, then add_part_sums() folds them.
  std::vector<double>& part_sums(std::size_t part) { return part_sums_[part]; }
  // out = Σ over parts of part_sums(part), added in part order so a fixed T gives the same bits.
  void add_part_sums(std::span<double> out) const;

 private:
  std::uint64_t samples_ = 0;
  std::uint32_t features_ = 0;
  int threads_ = 1;
  std::vector<std::vector<std::uint32_t>> dealt_;
  std::vector<data::ColumnMatrix> columns_;
  std::vector<std::vector<double>> part_sums_;
  struct Arena;
  std::unique_ptr<Arena> arena_;
  // body(block, begin, end) for each of the blocks of [0, count): for_each_block's and sum_blocks'.
  void run_blocks(std::size_t count, const std::function<void(std::size_t, std::size_t, std::size_t)>& body);
};

}  // namespace gyre::lasso
