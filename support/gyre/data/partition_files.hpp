// gyre/data/partition_files.hpp — what writing and reading a partition directory does alike for every kind of shard: each shard's file and its manifest entry (internal to lib/, not installed).
#pragma once

#include <cstdint>
#include <filesystem>
#include <span>
#include <vector>

#include "gyre/data/corpus.hpp"
#include "gyre/data/manifest.hpp"
#include "gyre/data/partition.hpp"
#include "gyre/data/ratings.hpp"
#include "gyre/data/regression.hpp"
#include "gyre/data/shard_file.hpp"

namespace gyre::data {

// Ends the messages about a count or a file that disagrees with the manifest.
inline constexpr const char* kAsListed = " as listed in manifest.json";

// Per shard type: the manifest kind, the names its counts go by in messages, how its shard file
// is written and read (File: what reading gives), and its manifest entry without the file name.
template <class Shard>
struct ShardKind;

template <>
struct ShardKind<RatingsSet> {
  static constexpr const char* kind = "ratings";
  static constexpr const char* records = "records";
  static constexpr const char* tokens = nullptr;  // balanced by records
  using File = RatingsSet;
  static void write(const std::filesystem::path& file, const RatingsSet& s) { write_ratings_shard(file, s); }
  static File read(const std::filesystem::path& file) { return read_ratings_shard(file); }
  static ShardEntry listing(const RatingsSet& s) { return {{}, s.ratings.size(), 0, records_checksum(s)}; }
  static RatingsSet&& shard(File& f) { return std::move(f); }
};

template <>
struct ShardKind<Corpus> {
  static constexpr const char* kind = "corpus";
  static constexpr const char* records = "documents";
  static constexpr const char* tokens = "tokens";
  using File = CorpusShardFile;
  static void write(const std::filesystem::path& file, const Corpus& s) { write_corpus_shard_file(file, s); }
  static File read(const std::filesystem::path& file) { return read_corpus_shard_file(file); }
  static ShardEntry listing(const Corpus& s) { return {{}, s.docs(), s.tokens(), records_checksum(s)}; }
  static ShardEntry listing(const File& f) { return {{}, f.corpus.docs(), f.corpus.tokens(), f.checksum}; }
  static Corpus&& shard(File& f) { return std::move(f.corpus); }
};

template <>
struct ShardKind<RegressionSet> {
  static constexpr const char* kind = "rows";
  static constexpr const char* records = "samples";
  static constexpr const char* tokens = "non-zeros";
  using File = RowShardFile;
  static void write(const std::filesystem::path& file, const RegressionSet& s) { write_row_shard_file(file, s); }
  static File read(const std::filesystem::path& file) { return read_row_shard_file(file); }
  static ShardEntry listing(const RegressionSet& s) { return {{}, s.samples(), s.nnz(), records_checksum(s)}; }
  static ShardEntry listing(const File& f) { return {{}, f.set.samples(), f.set.nnz(), f.checksum}; }
  static RegressionSet&& shard(File& f) { return std::move(f.set); }
};

// Starts a partition in `dir` (begin_partition_write), writes part-NNNNN.shard for each shard and
// lists it in `m`, with the kind, the totals and the balance (max/mean of the tokens where the
// kind has them, else of the records). The kind's own fields and files are the caller's, then
// write_manifest.
template <class Shard>
void write_listed_shards(const std::filesystem::path& dir, std::span<const Shard> shards, Manifest& m) {
  using Kind = ShardKind<Shard>;
  begin_partition_write(dir);
  m.kind = Kind::kind;
  std::vector<std::uint64_t> sizes;
  for (std::size_t i = 0; i < shards.size(); ++i) {
    ShardEntry e = Kind::listing(shards[i]);
    e.file = shard_file_name(i);
    Kind::write(dir / e.file, shards[i]);
    m.records += e.records;
    m.tokens += e.tokens;
    sizes.push_back(Kind::tokens ? e.tokens : e.records);
    m.shards.push_back(std::move(e));
  }
  m.balance = max_over_mean(sizes);
}

// The shard file `entry` lists, checked against the entry (counts, checksum); throws
// gyre::InputError naming the file. Checks of the id space are the caller's.
template <class Shard>
typename ShardKind<Shard>::File read_listed_file(const std::filesystem::path& dir, const ShardEntry& entry) {
  using Kind = ShardKind<Shard>;
  const std::filesystem::path file = listed_shard(dir, entry);
  typename Kind::File read = Kind::read(file);
  ShardEntry found = Kind::listing(read);
  found.file = entry.file;
  check_listed(file, entry, found, Kind::records, Kind::tokens ? Kind::tokens : "tokens");
  return read;
}

}  // namespace gyre::data
