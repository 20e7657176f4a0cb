// gyre/data/ratings_stats.hpp — what a job's plan needs of a whole training set of ratings: where each user is, how rated each item is, the ratings' moments by shard (internal to lib/, not installed).
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <vector>

#include "gyre/data/ratings.hpp"

namespace gyre::data {

// Count, sum and sum of squares of some ratings' values, accumulated in their order.
struct RatingsMoments {
  std::uint64_t count = 0;
  double sum = 0;
  double sum_squares = 0;

  void add(float value) {
    ++count;
    sum += value;
    sum_squares += static_cast<double>(value) * value;
  }
  bool operator==(const RatingsMoments&) const = default;
};

RatingsMoments moments_of(const RatingsSet& set);

inline constexpr std::uint32_t kNoPart = std::numeric_limits<std::uint32_t>::max();

// The statistics of a training set cut into shards by user. A process that holds one shard and
// these (read from a partition directory's users.txt, items.txt and manifest) plans the same job
// as one that holds every shard.
struct RatingsStats {
  std::uint32_t users = 0;
  std::uint32_t items = 0;
  std::vector<std::uint32_t> user_part;     // per user: the shard with its ratings; kNoPart if none
  std::vector<std::uint64_t> item_ratings;  // per item: its ratings in all shards
  // Per item: the sum of its ratings in all shards, in shard order; empty where it is not
  // known (a partition read one shard at a time lists only the counts).
  std::vector<double> item_sums;
  std::vector<RatingsMoments> parts;        // per shard, in shard order

  // The shards' moments combined in shard order: the same bits wherever they are computed.
  RatingsMoments total() const;
  std::uint32_t rated_users() const;
};

// The statistics of `shards` over an id space of at least users × items (and at least each
// shard's). A user with ratings in two shards is placed in the later one.
RatingsStats ratings_stats(std::span<const RatingsSet> shards, std::uint32_t users = 0, std::uint32_t items = 0);

// The one-way analysis of variance of the ratings grouped by item: the mean square between the
// items' means over the mean square within them (about 1 when the items' means differ only by
// noise). None without item sums, with fewer than two rated items, or when the ratings do not
// vary within items.
std::optional<double> item_means_f(const RatingsStats& stats);

}  // namespace gyre::data
