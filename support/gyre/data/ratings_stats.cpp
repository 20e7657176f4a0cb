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
  s.item_sums.assign(s.items, 0.0);
  for (std::uint32_t p = 0; p < shards.size(); ++p) {
    RatingsMoments m;
    for (const Rating& r : shards[p].ratings) {
      s.user_part[r.user] = p;
      ++s.item_ratings[r.item];
      s.item_sums[r.item] += r.value;
      m.add(r.value);
    }
    s.parts.push_back(m);
  }
  return s;
}

std::optional<double> item_means_f(const RatingsStats& stats) {
  if (stats.item_sums.size() != stats.item_ratings.size()) return std::nullopt;
  const RatingsMoments total = stats.total();
  double between_items = 0;  // Σ S_i² / n_i
  std::uint64_t rated = 0;
  for (std::size_t i = 0; i < stats.item_sums.size(); ++i) {
    if (stats.item_ratings[i] == 0) continue;
    ++rated;
    between_items += stats.item_sums[i] * stats.item_sums[i] / static_cast<double>(stats.item_ratings[i]);
  }
  if (rated < 2 || total.count <= rated) return std::nullopt;
  const double n = static_cast<double>(total.count);
  const double between = between_items - total.sum * total.sum / n;
  const double within = total.sum_squares - between_items;
  // Relative to the squares themselves, so that rounding in constant ratings does not count.
  if (!(within > 1e-9 * total.sum_squares)) return std::nullopt;
  return (between / static_cast<double>(rated - 1)) / (within / (n - static_cast<double>(rated)));
}

}  // namespace gyre::data
