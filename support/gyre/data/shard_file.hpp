// gyre/data/shard_file.hpp — the binary shard file: header (magic, version, kind, counts, checksum) + records.
#pragma once

#include <cstdint>
#include <filesystem>

#include "gyre/data/corpus.hpp"
#include "gyre/data/ratings.hpp"
#include "gyre/data/regression.hpp"

namespace gyre::data {

// Layout, little-endian:
//   char[8]  magic "GYRESHRD"
//   u32      format version (kShardVersion)
//   u32      kind (1 = ratings, 2 = corpus, 3 = rows of a regression set)
//   u64      record count (ratings: ratings; corpus: documents; rows: samples)
//   u32, u32 id space of the whole data set (ratings: users, items; corpus: vocabulary size, 0;
//            rows: features, 0)
//   u32      CRC-32C of the records
//   u32      reserved (0)
//   records, ratings: count × {u32 user, u32 item, f32 value}
//   records, corpus:  count × {u64 doc id, u32 token count} (12 bytes each, packed), then every
//                     token's word id as u32, document after document (sum of the token counts)
//   records, rows:    count × {u64 sample id, u32 nnz, f64 y} (20 bytes each, packed), then every
//                     non-zero as {u32 column, f64 value} (12 bytes, packed), row after row
inline constexpr std::uint32_t kShardVersion = 1;

void write_ratings_shard(const std::filesystem::path& file, const RatingsSet& shard);  // atomic

// Validates magic, version, kind, size against count and checksum; throws gyre::InputError.
RatingsSet read_ratings_shard(const std::filesystem::path& file);

// A corpus shard file holds documents only: the words live once per partition (vocab.txt), so
// the file knows just the size of the id space, and `corpus.vocab` comes back empty.
struct CorpusShardFile {
  Corpus corpus;
  std::uint32_t vocab_size = 0;
  std::uint32_t checksum = 0;  // of the records, verified against the header
};

void write_corpus_shard_file(const std::filesystem::path& file, const Corpus& shard);  // atomic

// Validates as read_ratings_shard does, plus every word id against the vocabulary size.
CorpusShardFile read_corpus_shard_file(const std::filesystem::path& file);

// A row shard file holds the samples only: feature names live once per partition
// (feature_names.txt), so `set.feature_names` comes back empty.
struct RowShardFile {
  RegressionSet set;
  std::uint32_t checksum = 0;  // of the records, verified against the header
};

void write_row_shard_file(const std::filesystem::path& file, const RegressionSet& shard);  // atomic

// Validates as read_ratings_shard does, plus every column against the feature count (and
// increasing within a row) and every number as finite.
RowShardFile read_row_shard_file(const std::filesystem::path& file);

// CRC-32C of the records as a shard file of this data stores them (the manifest repeats it).
std::uint32_t records_checksum(const RatingsSet& shard);
std::uint32_t records_checksum(const Corpus& shard);
std::uint32_t records_checksum(const RegressionSet& shard);

}  // namespace gyre::data
