// gyre/data/ratings_stats.cpp — a training set's plan statistics from its shards.
#include "gyre/data/ratings_stats.hpp"

#include <algorithm>

namespace gyre::data {

RatingsMoments moments_of(const RatingsSet& set) {
  RatingsMoments m;
  for (const Rating& r : set.ratings) m.add(r.value);
  return m;
}

RatingsMoments RatingsStats::total() const {
  RatingsMoments t;
  for (const RatingsMoments& p : parts) {
    t.count += p.count;
    t.sum += p.sum;
    t.sum_squares += p.sum_squares;
  }
  return t;
}

std::uint32_t RatingsStats::rated_users() const {
  return static_cast<std::uint32_t>(users - std::count(user_part.begin(), user_part.end(), kNoPart));
}

RatingsStats ratings_stats(std::span<const RatingsSet> shards, std::uint32_t users, std::uint32_t items) {
  RatingsStats s;
  s.users = users;
  s.items = items;
  for (const RatingsSet& shard : shards) {
    s.users = std::max(s.users, shard.users);
    s.items = std::max(s.items, shard.items);
  }
  s.user_part.assign(s.users, kNoPart);
  s.item_ratings.assign(s.items, 0);
  for (std::uint32_t p = 0; p < shards.size(); ++p) {
    RatingsMoments m;
    for (const Rating& r : shards[p].ratings) {
      s.user_part[r.user] = p;
      ++s.item_ratings[r.item];
      m.add(r.value);
    }
    s.parts.push_back(m);
  }
  return s;
}

}  // namespace gyre::data
