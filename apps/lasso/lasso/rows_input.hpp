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
  data::RegressionSet whole;  // where the scheduler runs (rank 0): every row, prepared; else empty
  data::RegressionSet shard;  // this rank's rows, as data::shard_rows deals the whole set (P > 1)
  PreparedRows prepared;      // rank 0
  ColumnStats stats;          // rank 0: the scheduler's, of every shard's column sums
  double y_offset = 0;        // the statistics' response offset, on every rank
  std::uint64_t samples = 0;  // the rows of every shard, on every rank
};

// This process (rank r of the P of `backend`'s job) loads its part of the rows over a
// map-reduce job of the same processes:
//  - a LibSVM file (or a directory with data.libsvm, or a directory of LibSVM files laid end to
//    end, N bytes in all): rank r parses only the lines that start in its byte range
//    [r·N/P, (r+1)·N/P), and every range's rows go to rank 0, which runs the
//    scheduler and needs them all (its dependency checks walk every column);
//  - a row partition of one part per process: rank 0 reads it whole, rank r > 0 only part r,
//    which rank 0's preparation (labels, columns) is applied to;
//  - any other input (CSV, MatrixMarket, another partition): rank 0 reads it whole, the others
//    read nothing.
// Rank 0 prepares the whole set (prepare_rows), checks it against `config` (validate), deals it
// as data::shard_rows does and sends each rank its shard (unless it read its part) with the
// response offset. The result is the one process's rows bit for bit: the same whole set, the
// same shards. A bad line is the
// one-process reader's first error at its true line (with two-class labels, the first label of a
// third class too): the rank that holds it throws it, the others stop with the job. `reads`:
// what every rank read of a LibSVM input, in rank order (empty for the other inputs).
RowsInput load_rows_across(const std::filesystem::path& path, const data::RegressionOptions& options,
                           const LassoConfig& config, const runtime::ProcessesBackend& backend,
                           std::vector<data::SplitStats>* reads = nullptr);

}  // namespace gyre::lasso
