// gyre/data/shard_file.hpp — the binary shard file: header (magic, version, counts, checksum) + records.
#pragma once

#include <cstdint>
#include <filesystem>

#include "gyre/data/ratings.hpp"

namespace gyre::data {

// Layout, little-endian:
//   char[8]  magic "GYRESHRD"
//   u32      format version (kShardVersion)
//   u32      kind (1 = ratings)
//   u64      record count
//   u32      users, u32 items (id space of the whole data set)
//   u32      CRC-32C of the records
//   u32      reserved (0)
//   records: count × {u32 user, u32 item, f32 value}
inline constexpr std::uint32_t kShardVersion = 1;

void write_ratings_shard(const std::filesystem::path& file, const RatingsSet& shard);  // atomic

// Validates magic, version, kind, size against count and checksum; throws gyre::InputError.
RatingsSet read_ratings_shard(const std::filesystem::path& file);

}  // namespace gyre::data
