// apps/lasso/lasso/rows_input.hpp — the rows gyre-lasso trains on: labels and columns prepared in one process, and across processes rank 0's whole set and every rank's shard.
#pragma once

#include <filesystem>
#include <optional>
#include <vector>

#include "gyre/data/binary_labels.hpp"
#include "gyre/data/byte_ranges.hpp"
#include "gyre/data/id_space.hpp"
#include "gyre/data/regression.hpp"
#include "gyre/runtime/job.hpp"
#include "lasso/column_stats.hpp"
#include "lasso/config.hpp"

namespace gyre::lasso {

// What the solve changes in the rows before it starts, and what the output needs to undo it.
struct PreparedRows {
  std::optional<data::TwoClasses> classes;  // the logistic loss: the original labels of 0 and 1
  data::IdTable columns;                    // the original column of every column the rows use
};
// The logistic loss: two-class labels mapped to 0/1 (data::binary_labels). Then the columns no
// sample uses are dropped (data::compact_features), so the work follows the data, not the
// largest feature index.
PreparedRows prepare_rows(data::RegressionSet& set, Loss loss);

// What one process of a job holds of the rows.
struct RowsInput {
  data::RegressionSet shard;  // this rank's rows, as data::shard_rows deals the whole set
  PreparedRows prepared;      // rank 0: how the rows were prepared (it writes the output)
  ColumnStats stats;          // rank 0: the scheduler's, of every shard's column sums
  double y_offset = 0;        // the statistics' response offset, on every rank
  std::uint64_t samples = 0;  // the rows of every shard, on every rank
  std::uint64_t nnz = 0;      // their non-zeros, on every rank
  std::uint64_t rows_received = 0;  // rows of this rank's shard that other ranks sent it
  struct Holding {
    std::uint64_t rows = 0, received = 0;
  };
  std::vector<Holding> holdings;  // every rank's shard rows and rows_received, in rank order
};

// This process (rank r of the P of `backend`'s job) loads its shard of the rows over a
// map-reduce job of the same processes:
//  - a LibSVM file (or a directory with data.libsvm, or a directory of LibSVM files laid end to
//    end, N bytes in all): rank r parses only the lines that start in its byte range
//    [r·N/P, (r+1)·N/P); the labels and columns are prepared across the ranks (O(features)
//    each), rank 0 deals the rows from their non-zero counts alone, and each rank sends each of
//    its rows to the rank whose shard holds it;
//  - a row partition of one part per process: rank r reads part r, its shard;
//  - any other input (CSV, MatrixMarket, another partition): rank 0 reads it whole, prepares
//    and deals it, and sends each rank its shard.
// No rank but rank 0 of the last kind ever holds a row of another rank's shard. The shards are
// one process's bit for bit (prepare_rows, validate, data::shard_rows). Rank 0 then has the
// column statistics of every shard (ColumnStats, fold_column_stats), and every rank the response
// offset. A bad line is the one-process reader's first error at its true line (with two-class
// labels, the first label of a third class too): the rank that holds it throws it, the others
// stop with the job. `reads`: what every rank read of a LibSVM input, in rank order (empty for
// the other inputs).
RowsInput load_rows_across(const std::filesystem::path& path, const data::RegressionOptions& options,
                           const LassoConfig& config, const runtime::ProcessesBackend& backend,
                           std::vector<data::SplitStats>* reads = nullptr);

}  // namespace gyre::lasso
