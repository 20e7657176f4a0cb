// gyre/data/manifest.hpp — the JSON manifest of a partition directory and loading it back.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "gyre/data/ratings.hpp"

namespace gyre::data {

struct ShardEntry {
  std::string file;         // relative to the directory
  std::uint64_t records = 0;
  std::uint32_t checksum = 0;  // CRC-32C of the records, as in the shard header
};

// DIR/manifest.json:
// {"format":"gyre-partition","version":1,"kind":"ratings","parts":P,"users":U,"items":I,
//  "records":N,"balance":max/mean,"shards":[{"file":"part-00000.shard","records":n,"checksum":c},...]}
struct Manifest {
  std::string kind = "ratings";
  std::uint32_t users = 0;
  std::uint32_t items = 0;
  std::uint64_t records = 0;
  double balance = 1.0;
  std::vector<ShardEntry> shards;
};

inline constexpr const char* kManifestName = "manifest.json";

// Writes shards then the manifest (each atomically; the manifest last, so a directory with a
// manifest is complete).
void write_ratings_partition(const std::filesystem::path& dir, const std::vector<RatingsSet>& shards);

Manifest read_manifest(const std::filesystem::path& dir);  // throws gyre::InputError

// Loads every shard and checks it against the manifest (counts, checksums, id space);
// a mismatch throws gyre::InputError naming the shard file.
std::vector<RatingsSet> read_ratings_partition(const std::filesystem::path& dir);

}  // namespace gyre::data
