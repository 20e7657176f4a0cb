// gyre/data/planted_ratings.cpp — deterministic generator of low-rank ratings with Zipf items.
#include "gyre/data/planted_ratings.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "gyre/data/alias_table.hpp"

namespace gyre::data {
namespace {

// Independent streams per concern, so that e.g. changing the noise does not move the pairs.
enum RatingsStream : std::uint64_t { kFactors, kPermutation, kPairs, kShuffle, kRatingNoise };

void check(const PlantedRatingsOptions& o) {
  const auto fail = [](const std::string& what) { throw std::invalid_argument("planted ratings: " + what); };
  if (o.users == 0 || o.items == 0 || o.rank == 0) fail("users, items and rank must be at least 1");
  if (o.users > kMaxId + 1 || o.items > kMaxId + 1) fail("users and items must be at most " + std::to_string(kMaxId + 1));
  if (o.ratings == 0) fail("ratings must be at least 1");
  if (o.ratings > std::uint64_t{o.users} * o.items)
    fail("ratings (" + std::to_string(o.ratings) + ") exceed users x items, the number of distinct pairs");
  if (!(o.noise >= 0) || !std::isfinite(o.noise)) fail("noise must be a finite number >= 0");
  if (!(o.test_fraction >= 0 && o.test_fraction <= 1)) fail("test fraction must be in [0, 1]");
  if (!(o.popularity_skew >= 0) || !std::isfinite(o.popularity_skew)) fail("popularity skew must be >= 0");
}

// Distinct pair keys user * items + item, in no particular order.
std::vector<std::uint64_t> draw_pairs(const PlantedRatingsOptions& o) {
  const std::uint64_t n = o.ratings, items = o.items;
  const std::uint64_t space = std::uint64_t{o.users} * items;
  Random rng(o.seed, kPairs);
  std::vector<std::uint64_t> keys;
  if (2 * n > space) {
    // Dense: rejection sampling would crawl towards the last free pairs, so select exactly n of
    // all pairs (Knuth's algorithm S). Popularity skew cannot be honoured at this density.
    keys.reserve(n);
    for (std::uint64_t k = 0; k < space && keys.size() < n; ++k)
      if (static_cast<double>(space - k) * rng.uniform() < static_cast<double>(n - keys.size())) keys.push_back(k);
    return keys;
  }

  std::vector<std::uint32_t> permutation(o.items);
  for (std::uint32_t i = 0; i < o.items; ++i) permutation[i] = i;
  Random perm_rng(o.seed, kPermutation);
  for (std::size_t i = permutation.size(); i > 1; --i) std::swap(permutation[i - 1], permutation[perm_rng.below(i)]);
  std::vector<double> weights(o.items);
  for (std::uint32_t r = 0; r < o.items; ++r) weights[r] = std::pow(static_cast<double>(r) + 1.0, -o.popularity_skew);
  const AliasTable zipf(weights);

  // Draw, sort, deduplicate; top up with more draws, scaled by the last round's yield, until
  // there are enough. Strong skew can saturate the popular items, so after a few rounds the
  // top-ups draw items uniformly, which always converges at density <= 1/2.
  double yield = 0.9;
  for (int round = 0; keys.size() < n; ++round) {
    const std::uint64_t missing = n - keys.size();
    const auto draws = static_cast<std::uint64_t>(static_cast<double>(missing) / std::max(yield, 0.05) * 1.05) + 64;
    const bool skewed = round < 8;
    const std::size_t before = keys.size();
    keys.reserve(before + draws);
    for (std::uint64_t d = 0; d < draws; ++d) {
      const std::uint64_t user = rng.below(o.users);
      const std::uint64_t item = skewed ? permutation[zipf.draw(rng)] : rng.below(items);
      keys.push_back(user * items + item);
    }
    std::sort(keys.begin(), keys.end());
    keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
    yield = static_cast<double>(keys.size() - before) / static_cast<double>(draws);
  }
  return keys;
}

}  // namespace

PlantedRatings generate_planted_ratings(const PlantedRatingsOptions& o) {
  check(o);
  std::vector<std::uint64_t> keys = draw_pairs(o);
  // Shuffling the sorted key set makes the order deterministic yet free of id order, and taking
  // a prefix drops any surplus of the last top-up round uniformly at random.
  Random shuffle(o.seed, kShuffle);
  for (std::size_t i = keys.size(); i > 1; --i) std::swap(keys[i - 1], keys[shuffle.below(i)]);
  keys.resize(o.ratings);

  // Entry variance rank^-1/2 on both sides gives p_u·q_i variance rank · (rank^-1/2)² = 1.
  const std::size_t rank = o.rank;
  const double scale = std::pow(static_cast<double>(rank), -0.25);
  Random factor_rng(o.seed, kFactors);
  std::vector<float> p(std::size_t{o.users} * rank), q(std::size_t{o.items} * rank);
  for (float& x : p) x = static_cast<float>(scale * factor_rng.normal());
  for (float& x : q) x = static_cast<float>(scale * factor_rng.normal());

  const auto test_count = static_cast<std::uint64_t>(std::llround(static_cast<double>(o.ratings) * o.test_fraction));
  PlantedRatings out;
  out.train.users = out.test.users = o.users;
  out.train.items = out.test.items = o.items;
  out.test.ratings.reserve(test_count);
  out.train.ratings.reserve(o.ratings - test_count);
  Random noise(o.seed, kRatingNoise);
  for (std::size_t k = 0; k < keys.size(); ++k) {
    const auto user = static_cast<std::uint32_t>(keys[k] / o.items);
    const auto item = static_cast<std::uint32_t>(keys[k] % o.items);
    const float* pu = &p[std::size_t{user} * rank];
    const float* qi = &q[std::size_t{item} * rank];
    double dot = 0;
    for (std::size_t f = 0; f < rank; ++f) dot += double{pu[f]} * double{qi[f]};
    const Rating r{user, item, static_cast<float>(dot + o.noise * noise.normal())};
    (k < test_count ? out.test : out.train).ratings.push_back(r);
  }
  return out;
}

}  // namespace gyre::data
