// gyre/data/regression_partition.hpp — non-zero-balanced row shards of a regression set and their partition directory.
#pragma once

#include <cstdint>
#include <filesystem>
#include <span>
#include <vector>

#include "gyre/data/regression.hpp"

namespace gyre::data {

// Rows (samples) are dealt greedily, most non-zeros first to the least loaded part (ties by row
// index, then by part index; a row without non-zeros weighs 1), the same dealing corpus
// documents get, so every run gives the same shards. Each shard keeps its rows in input order,
// their sample ids, the feature count and the feature names.
std::vector<RegressionSet> shard_rows(const RegressionSet& set, std::uint32_t parts);
// The same dealing as row indices only (each part's rows increasing), for callers that build
// their own per-part structures without copying the rows.
std::vector<std::vector<std::uint32_t>> deal_rows(const RegressionSet& set, std::uint32_t parts);
// The same dealing from the rows' non-zero counts alone (row i has nnz[i]): what a process
// deals that holds no row, only their counts.
std::vector<std::vector<std::uint32_t>> deal_rows_by_nnz(std::span<const std::uint64_t> nnz, std::uint32_t parts);

// Rows `rows` of `set` (increasing indices) as a set of their own: their sample ids, the
// feature count and names kept.
RegressionSet select_rows(const RegressionSet& set, std::span<const std::uint32_t> rows);

// max shard non-zeros / mean shard non-zeros (1.0 is perfect balance; also for no shards or non-zeros).
double nnz_balance(std::span<const RegressionSet> shards);

// The shards back as one set, rows ordered by sample id (ties: shard order), which restores
// the input order of every reader's sample ids.
RegressionSet merge_row_shards(std::span<const RegressionSet> shards);

// A row partition directory:
//   part-NNNNN.shard   one binary shard file per part (kind 3, see shard_file.hpp)
//   feature_names.txt  only if the set has feature names: one per line (line j = feature j-1)
//   manifest.json      kind "rows" (see manifest.hpp), written last
// The shards must agree on the features (count and names).
void write_row_partition(const std::filesystem::path& dir, std::span<const RegressionSet> shards);

// Shard `part` (with the feature names, if any), checked against the manifest (samples,
// non-zeros, checksum, feature count); throws gyre::InputError naming the file at fault.
RegressionSet read_row_shard(const std::filesystem::path& dir, std::uint32_t part);
std::vector<RegressionSet> read_row_partition(const std::filesystem::path& dir);

}  // namespace gyre::data
