// gyre/data/manifest.hpp — the JSON manifest of a partition directory (ratings, corpus or rows) and loading it back.
#pragma once

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "gyre/base/output_directory.hpp"


namespace gyre::data {

struct ShardEntry {
  std::string file;            // relative to the directory
  std::uint64_t records = 0;   // ratings; for a corpus: documents; for rows: samples
  std::uint64_t tokens = 0;    // corpus: tokens; rows: non-zeros
  std::uint32_t checksum = 0;  // CRC-32C of the records, as in the shard header
  double sum = 0;              // ratings with dense ids: the sum of the shard's values, in order,
  double sum_squares = 0;      // and of their squares (for the job's mean and scale)
};

// DIR/manifest.json, kind "ratings":
// {"format":"gyre-partition","version":1,"kind":"ratings","parts":P,"users":U,"items":I,
//  "records":N,"balance":max/mean,"shards":[{"file":"part-00000.shard","records":n,"checksum":c},...]}
// With dense ids (written by gyre-partition since a process could read one shard alone) the
// shards hold ids 0..users-1 and 0..items-1, users.txt and items.txt map them back (see
// ratings_partition.hpp), and the manifest adds "ids":"dense" after "items" and "sum" and
// "sum_squares" (numbers) after each shard's "checksum".
// kind "corpus" (balance of tokens; see corpus_partition.hpp for the other files):
// {"format":"gyre-partition","version":1,"kind":"corpus","parts":P,"vocab":V,"doc_id_limit":L,"docs":D,
//  "tokens":T,"balance":max/mean,"shards":[{"file":"part-00000.shard","docs":d,"tokens":t,"checksum":c},...]}
// (doc_id_limit: one past the largest document id; absent from partitions written before it was recorded)
// kind "rows" (balance of non-zeros; see regression_partition.hpp for the other files):
// {"format":"gyre-partition","version":1,"kind":"rows","parts":P,"features":M,"samples":N,"nnz":Z,
//  "balance":max/mean,"shards":[{"file":"part-00000.shard","samples":n,"nnz":z,"checksum":c},...]}
struct Manifest {
  std::string kind = "ratings";  // "ratings", "corpus" or "rows"
  std::uint32_t users = 0;       // ratings
  std::uint32_t items = 0;       // ratings
  bool dense_ids = false;        // ratings: shards hold dense ids (users.txt, items.txt)
  std::uint32_t vocab = 0;       // corpus: vocabulary size
  std::uint64_t doc_id_limit = 0;  // corpus: one past the largest document id; 0 where not recorded
  std::uint32_t features = 0;    // rows
  std::uint64_t records = 0;     // ratings; for a corpus: documents; for rows: samples
  std::uint64_t tokens = 0;      // corpus: tokens; rows: non-zeros
  double balance = 1.0;
  std::vector<ShardEntry> shards;
};

inline constexpr const char* kManifestName = "manifest.json";

// A directory holding a manifest: a partition (gyre-partition's output), not a directory of input files.
bool is_partition_directory(const std::filesystem::path& path);

// "part-NNNNN.shard", the name of shard `index` in a partition directory.
std::string shard_file_name(std::size_t index);

// What a partition directory of any kind holds (shards, manifest, vocabulary, word counts, word
// blocks, feature names): an existing output directory is replaced only if it holds nothing else.
const DirectoryKind& partition_directory();

// Reads and checks DIR/manifest.json (any kind); throws gyre::InputError.
Manifest read_manifest(const std::filesystem::path& dir);
// The same, and the manifest must be of this kind.
Manifest read_manifest(const std::filesystem::path& dir, std::string_view kind);

// For the writers and readers of each kind of partition:
// Removes an old manifest, so the directory does not look complete while shards are replaced.
void begin_partition_write(const std::filesystem::path& dir);
// Writes DIR/manifest.json atomically; call it after everything it describes is written.
void write_manifest(const std::filesystem::path& dir, const Manifest& manifest);
// The manifest's entry for shard `part`, or gyre::InputError naming DIR/manifest.json.
const ShardEntry& listed_part(const std::filesystem::path& dir, const Manifest& manifest, std::uint32_t part);
// DIR/entry.file, or gyre::InputError naming it if it does not exist.
std::filesystem::path listed_shard(const std::filesystem::path& dir, const ShardEntry& entry);
// Throws gyre::InputError naming the later of two shards that hold the same record id (`what`:
// "document", "sample"); ids_per_shard[i] are the ids of the manifest's shard i. A record in two
// shards would be trained twice and written out twice.
void check_ids_unique(const std::filesystem::path& dir, const Manifest& manifest,
                      std::span<const std::span<const std::uint64_t>> ids_per_shard, std::string_view what);
// Throws gyre::InputError naming `file` unless what was loaded matches the manifest entry;
// `records` and `tokens` name the counts in the message ("documents", "tokens"; "samples", "non-zeros").
void check_listed(const std::filesystem::path& file, const ShardEntry& listed, const ShardEntry& loaded,
                  std::string_view records, std::string_view tokens = "tokens");

}  // namespace gyre::data
