// gyre/data/ratings_partition.hpp — the ratings partition directory: written with dense ids and the plan's statistics, read whole or one shard alone (internal to lib/, not installed).
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <vector>

#include "gyre/data/id_space.hpp"
#include "gyre/data/ratings.hpp"
#include "gyre/data/ratings_stats.hpp"

namespace gyre::data {

// A ratings partition directory:
//   part-NNNNN.shard  one binary shard per part (kind 1, see shard_file.hpp)
//   users.txt         with dense ids: one line per dense user, "original_id part" (the shard
//                     holding the user's ratings), ascending by original id
//   items.txt         with dense ids: one line per dense item, "original_id ratings" (its ratings
//                     in the whole set), ascending by original id
//   manifest.json     kind "ratings" (see manifest.hpp), written last

// Shards that keep the input's ids, as they are: no users.txt or items.txt, so a job reads
// every shard. For directories made by hand (tests, older tools).
void write_ratings_partition(const std::filesystem::path& dir, const std::vector<RatingsSet>& shards);

// Shards in the dense id space `ids` describes (compact_ids over the shards): the shards, users.txt,
// items.txt and the manifest with each shard's moments. Every user of `ids` must have ratings
// in exactly one shard (std::invalid_argument otherwise).
void write_ratings_partition(const std::filesystem::path& dir, const std::vector<RatingsSet>& shards,
                             const IdTables& ids);

// Every shard, checked against the manifest (counts, checksums, id space, and with dense ids
// users.txt and items.txt), with the input's ids: a partition reads back as the file it was
// made from. Throws gyre::InputError naming the file at fault.
std::vector<RatingsSet> read_ratings_partition(const std::filesystem::path& dir);

// What one process of a job needs of a partition with dense ids: shard `part` (dense ids, no
// other shard opened), the ids' originals, and the statistics of the whole set, each checked
// (the shard against the manifest and users.txt, the files against the manifest). nullopt for a
// partition that keeps the input's ids: read it whole instead.
struct RatingsPart {
  RatingsSet shard;
  IdTables ids;
  RatingsStats stats;
};
std::optional<RatingsPart> read_ratings_part(const std::filesystem::path& dir, std::uint32_t part);

}  // namespace gyre::data
