// tests/lib/data/planted_ratings_test.cpp — the planted generator: determinism, distinct pairs, skew, scale.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <set>

#include "gyre/data/planted_ratings.hpp"

using namespace gyre::data;

namespace {

bool same_bytes(const RatingsSet& a, const RatingsSet& b) {
  return a.users == b.users && a.items == b.items && a.ratings.size() == b.ratings.size() &&
         std::memcmp(a.ratings.data(), b.ratings.data(), a.ratings.size() * sizeof(Rating)) == 0;
}

PlantedRatingsOptions planted_ratings_options() {
  PlantedRatingsOptions o;
  o.users = 3000;
  o.items = 1000;
  o.ratings = 60'000;
  o.rank = 8;
  o.noise = 0.1;
  o.seed = 5;
  return o;
}

}  // namespace

TEST_CASE("planted: same options give the same bytes, another seed does not") {
  const auto a = generate_planted_ratings(planted_ratings_options());
  const auto b = generate_planted_ratings(planted_ratings_options());
  CHECK(same_bytes(a.train, b.train));
  CHECK(same_bytes(a.test, b.test));
  auto other = planted_ratings_options();
  other.seed = 6;
  CHECK(!same_bytes(a.train, generate_planted_ratings(other).train));
}

TEST_CASE("planted: counts, id space, distinct pairs, test split and shuffled order") {
  const auto data = generate_planted_ratings(planted_ratings_options());
  CHECK(data.test.ratings.size() == 6000);
  CHECK(data.train.ratings.size() == 54'000);
  CHECK(data.train.users == 3000);
  CHECK(data.test.items == 1000);
  std::set<std::pair<std::uint32_t, std::uint32_t>> pairs;
  for (const auto* set : {&data.train, &data.test})
    for (const Rating& r : set->ratings) {
      REQUIRE(r.user < 3000);
      REQUIRE(r.item < 1000);
      pairs.insert({r.user, r.item});
    }
  CHECK(pairs.size() == 60'000);
  const auto& t = data.train.ratings;
  CHECK(!std::is_sorted(t.begin(), t.end(), [](const Rating& x, const Rating& y) {
    return x.user != y.user ? x.user < y.user : x.item < y.item;
  }));
}

TEST_CASE("planted: item popularity follows the skew, over permuted ids") {
  auto o = planted_ratings_options();
  o.users = 20'000;  // enough users that the popular items are far from saturated
  o.popularity_skew = 1.0;
  const auto data = generate_planted_ratings(o);
  std::vector<std::size_t> count(o.items, 0);
  for (const Rating& r : data.train.ratings) ++count[r.item];
  const auto top = std::max_element(count.begin(), count.end());
  std::vector<std::size_t> sorted = count;
  std::sort(sorted.rbegin(), sorted.rend());
  // Zipf(1) over 1000 items: the top item draws ~1/H(1000) ≈ 13% of draws; rank 10 about 1/10 of that.
  CHECK(static_cast<double>(*top) > 0.05 * static_cast<double>(data.train.ratings.size()));
  CHECK(sorted[9] * 4 < sorted[0]);
  CHECK(top - count.begin() != 0);  // the most popular item is not simply id 0 (seeded permutation)

  o.popularity_skew = 0.0;
  std::vector<std::size_t> flat(o.items, 0);
  for (const Rating& r : generate_planted_ratings(o).train.ratings) ++flat[r.item];
  CHECK(*std::max_element(flat.begin(), flat.end()) < 2 * 54);
}

TEST_CASE("planted: noiseless signal has unit variance; noise adds its own") {
  auto o = planted_ratings_options();
  o.popularity_skew = 0.0;  // many items share the weight, so the sample variance is close to 1
  o.noise = 0.0;
  const auto clean = generate_planted_ratings(o);
  double sum = 0, sum2 = 0;
  for (const Rating& r : clean.train.ratings) sum += r.value, sum2 += double{r.value} * r.value;
  const double n = static_cast<double>(clean.train.ratings.size());
  const double var = sum2 / n - (sum / n) * (sum / n);
  CHECK(var == doctest::Approx(1.0).epsilon(0.1));

  o.noise = 0.5;
  const auto noisy = generate_planted_ratings(o);
  REQUIRE(noisy.train.ratings.size() == clean.train.ratings.size());
  double diff2 = 0;
  for (std::size_t i = 0; i < noisy.train.ratings.size(); ++i) {
    REQUIRE(noisy.train.ratings[i].user == clean.train.ratings[i].user);  // noise does not move pairs
    const double d = double{noisy.train.ratings[i].value} - clean.train.ratings[i].value;
    diff2 += d * d;
  }
  CHECK(std::sqrt(diff2 / n) == doctest::Approx(0.5).epsilon(0.02));
}

TEST_CASE("planted: dense and saturating requests still give exactly the distinct pairs asked for") {
  PlantedRatingsOptions o;
  o.users = 30;
  o.items = 20;
  o.ratings = 600;  // every pair
  o.test_fraction = 0.0;
  auto data = generate_planted_ratings(o);
  CHECK(data.train.ratings.size() == 600);
  CHECK(data.test.ratings.empty());

  o.ratings = 250;  // below half density, but skew 3 saturates the top items
  o.popularity_skew = 3.0;
  data = generate_planted_ratings(o);
  std::set<std::pair<std::uint32_t, std::uint32_t>> pairs;
  for (const auto* set : {&data.train, &data.test})
    for (const Rating& r : set->ratings) pairs.insert({r.user, r.item});
  CHECK(pairs.size() == 250);
}

TEST_CASE("planted: impossible options are refused") {
  PlantedRatingsOptions o;
  o.users = 10;
  o.items = 10;
  o.ratings = 101;
  CHECK_THROWS_AS(generate_planted_ratings(o), std::invalid_argument);
  o.ratings = 50;
  o.test_fraction = 1.5;
  CHECK_THROWS_AS(generate_planted_ratings(o), std::invalid_argument);
  o.test_fraction = 0.1;
  o.rank = 0;
  CHECK_THROWS_AS(generate_planted_ratings(o), std::invalid_argument);
}
