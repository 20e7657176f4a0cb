// gyre/data/partition.hpp — split ratings into shards by user, balanced by ratings count.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "gyre/data/ratings.hpp"

namespace gyre::data {

// user_to_part[u] is the shard of user u; every rating of a user lands in the same shard,
// because MF keeps each user's factor row with the shard that holds the user's ratings.
struct UserPartition {
  std::vector<std::uint32_t> user_to_part;
  std::uint32_t parts = 0;
};

// Deterministic greedy balancing (users by descending count to the least loaded part, ties by
// id). Users without ratings go round-robin by id so that test-only users have a home too.
UserPartition partition_users(const RatingsSet& set, std::uint32_t parts);
// The same from each user's ratings count (ratings[u] for user u), where the ratings are spread
// over processes that have summed their counts.
UserPartition partition_users(std::span<const std::uint64_t> ratings, std::uint32_t parts);

// Splits a set by a partition; each shard keeps the full id space and the input order.
std::vector<RatingsSet> split_by_user(const RatingsSet& set, const UserPartition& partition);

// max part size / mean part size (1.0 is perfect balance).
double balance(const std::vector<RatingsSet>& shards);

// The same figure from the part sizes, for every kind of shard; 1.0 when there is nothing.
double max_over_mean(std::span<const std::uint64_t> sizes);

// Where each record of a merge comes from: every shard's records ordered by id (stable, so
// equal ids keep shard order), for merging shards back into input order.
struct MergedRecord {
  std::uint64_t id;
  std::uint32_t shard;
  std::uint64_t index;  // within its shard
};
std::vector<MergedRecord> merge_by_id(std::span<const std::span<const std::uint64_t>> ids_per_shard);

}  // namespace gyre::data
