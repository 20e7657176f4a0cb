// gyre/data/regression_partition.cpp — nnz-balanced row shards, and the row partition directory written and checked.
#include "gyre/data/regression_partition.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>

#include "gyre/base/input_error.hpp"
#include "gyre/data/corpus_io.hpp"
#include "gyre/data/manifest.hpp"
#include "gyre/data/partition_files.hpp"
#include "gyre/model/row_blocks.hpp"

namespace gyre::data {
namespace {

namespace fs = std::filesystem;

constexpr const char* kFeatureNamesName = "feature_names.txt";

RegressionSet read_regression_shard(const fs::path& dir, const Manifest& m, const ShardEntry& entry) {
  RowShardFile shard = read_listed_file<RegressionSet>(dir, entry);
  if (shard.set.features != m.features)
    throw InputError(dir / entry.file, 0, std::to_string(m.features) + " features" + kAsListed, std::to_string(shard.set.features));
  return std::move(shard.set);
}

// The names, or none when the partition has no feature_names.txt.
std::vector<std::string> read_listed_names(const fs::path& dir, const Manifest& m) {
  const fs::path file = dir / kFeatureNamesName;
  std::error_code ec;
  if (!fs::exists(file, ec)) return {};
  std::vector<std::string> names = read_names(file, "a feature name");
  if (names.size() != m.features)
    throw InputError(file, 0, std::to_string(m.features) + " names, one per feature," + kAsListed,
                     std::to_string(names.size()) + " names");
  return names;
}

}  // namespace

std::vector<std::vector<std::uint32_t>> deal_rows(const RegressionSet& set, std::uint32_t parts) {
  std::vector<std::uint64_t> nnz(set.samples());
  for (std::uint64_t i = 0; i < set.samples(); ++i) nnz[i] = set.row_begin[i + 1] - set.row_begin[i];
  return deal_rows_by_nnz(nnz, parts);
}

std::vector<std::vector<std::uint32_t>> deal_rows_by_nnz(std::span<const std::uint64_t> nnz, std::uint32_t parts) {
  if (parts == 0) throw std::invalid_argument("shard_rows: parts must be at least 1");
  if (nnz.size() > std::numeric_limits<std::uint32_t>::max())
    throw std::invalid_argument("shard_rows: more than 2^32 - 1 samples");
  // Rows are balanced by their non-zeros: the same LPT dealing as corpus documents and word blocks.
  return model::RowBlocks::balance(std::vector<std::uint64_t>(nnz.begin(), nnz.end()), parts).rows;
}

RegressionSet select_rows(const RegressionSet& set, std::span<const std::uint32_t> rows) {
  RegressionSet s;
  s.features = set.features;
  s.feature_names = set.feature_names;
  std::uint64_t nnz = 0;
  for (const std::uint32_t i : rows) nnz += set.row_begin[i + 1] - set.row_begin[i];
  s.cols.reserve(nnz);
  s.values.reserve(nnz);
  s.row_begin.reserve(rows.size() + 1);
  s.y.reserve(rows.size());
  s.sample_ids.reserve(rows.size());
  for (const std::uint32_t i : rows) s.add_row(set.sample_ids[i], set.y[i], set.row_cols(i), set.row_values(i));
  return s;
}

std::vector<RegressionSet> shard_rows(const RegressionSet& set, std::uint32_t parts) {
  const std::vector<std::vector<std::uint32_t>> dealt = deal_rows(set, parts);
  std::vector<RegressionSet> shards;
  shards.reserve(parts);
  // dealt[p] lists the samples by index, which is input order.
  for (const auto& rows : dealt) shards.push_back(select_rows(set, rows));
  return shards;
}

double nnz_balance(std::span<const RegressionSet> shards) {
  std::vector<std::uint64_t> sizes;
  for (const RegressionSet& s : shards) sizes.push_back(s.nnz());
  return max_over_mean(sizes);
}

RegressionSet merge_row_shards(std::span<const RegressionSet> shards) {
  RegressionSet merged;
  if (shards.empty()) return merged;
  merged.features = shards.front().features;
  merged.feature_names = shards.front().feature_names;
  std::vector<std::span<const std::uint64_t>> ids;
  std::uint64_t nnz = 0;
  for (const RegressionSet& shard : shards) {
    if (shard.features != merged.features)
      throw std::invalid_argument("merge_row_shards: shards disagree on the features");
    ids.emplace_back(shard.sample_ids);
    nnz += shard.nnz();
  }
  const auto order = merge_by_id(ids);
  merged.cols.reserve(nnz);
  merged.values.reserve(nnz);
  merged.row_begin.reserve(order.size() + 1);
  merged.y.reserve(order.size());
  merged.sample_ids.reserve(order.size());
  for (const MergedRecord& src : order) {
    const RegressionSet& s = shards[src.shard];
    merged.add_row(src.id, s.y[src.index], s.row_cols(src.index), s.row_values(src.index));
  }
  return merged;
}

void write_row_partition(const fs::path& dir, std::span<const RegressionSet> shards) {
  if (shards.empty()) throw std::invalid_argument("write_row_partition: no shards");
  for (const RegressionSet& s : shards)
    if (s.features != shards.front().features || s.feature_names != shards.front().feature_names)
      throw std::invalid_argument("write_row_partition: shards disagree on the features");
  Manifest m;
  m.features = shards.front().features;
  write_listed_shards(dir, shards, m);
  // A stale name list of an older partition would otherwise be taken for this one's.
  std::filesystem::remove(dir / kFeatureNamesName);
  if (!shards.front().feature_names.empty()) write_vocab(dir / kFeatureNamesName, shards.front().feature_names);
  write_manifest(dir, m);
}

RegressionSet read_row_shard(const fs::path& dir, std::uint32_t part) {
  const Manifest m = read_manifest(dir, "rows");
  RegressionSet shard = read_regression_shard(dir, m, listed_part(dir, m, part));
  shard.feature_names = read_listed_names(dir, m);
  return shard;
}

std::vector<RegressionSet> read_row_partition(const fs::path& dir) {
  const Manifest m = read_manifest(dir, "rows");
  const std::vector<std::string> names = read_listed_names(dir, m);
  std::vector<RegressionSet> shards;
  shards.reserve(m.shards.size());
  for (const ShardEntry& e : m.shards) {
    shards.push_back(read_regression_shard(dir, m, e));
    shards.back().feature_names = names;
  }
  std::vector<std::span<const std::uint64_t>> ids;
  for (const RegressionSet& shard : shards) ids.emplace_back(shard.sample_ids);
  check_ids_unique(dir, m, ids, "sample");
  return shards;
}

}  // namespace gyre::data
