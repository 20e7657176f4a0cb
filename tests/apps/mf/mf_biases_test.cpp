// tests/apps/mf/mf_biases_test.cpp — whether a model fits biases when nobody said: the items' means against noise.
#include <doctest/doctest.h>

#include "gyre/data/planted_ratings.hpp"
#include "gyre/data/ratings_stats.hpp"
#include "mf/trainer.hpp"

using namespace gyre;

namespace {

// Planted factors without offsets: an item's mean rating differs from the others' by noise.
data::RatingsSet planted(std::uint64_t seed) {
  data::PlantedRatingsOptions o;
  o.users = 2000;
  o.items = 500;
  o.ratings = 60'000;
  o.test_fraction = 0;
  o.seed = seed;
  return data::generate_planted_ratings(o).train;
}

// The same ratings with each item shifted by one of seven offsets, 0.1 apart: a spread of
// 0.2, a fifth of the ratings' own.
data::RatingsSet with_item_offsets(data::RatingsSet set) {
  for (data::Rating& r : set.ratings) r.value += 0.1f * static_cast<float>(static_cast<int>(r.item % 7) - 3);
  return set;
}

std::vector<data::RatingsSet> shards_of(data::RatingsSet set) {
  std::vector<data::RatingsSet> shards;
  shards.push_back(std::move(set));
  return shards;
}

}  // namespace

TEST_CASE("the items' means F is about 1 for noise and far above it for offsets") {
  for (std::uint64_t seed : {1, 2, 3}) {
    CAPTURE(seed);
    const auto noise = data::item_means_f(data::ratings_stats(shards_of(planted(seed))));
    REQUIRE(noise);
    CHECK(*noise > 0.8);
    CHECK(*noise < 1.25);
    const auto offsets = data::item_means_f(data::ratings_stats(shards_of(with_item_offsets(planted(seed)))));
    REQUIRE(offsets);
    CHECK(*offsets > 2 * mf::kItemOffsetsF);
  }
}

TEST_CASE("the items' means F is not made up where it cannot be told") {
  data::RatingsSet set{{{0, 0, 1.0f}, {1, 0, 2.0f}, {2, 0, 3.0f}}, 3, 1};
  CHECK(!data::item_means_f(data::ratings_stats(shards_of(set))));  // one item
  set = data::RatingsSet{{{0, 0, 1.0f}, {1, 1, 1.0f}, {2, 0, 1.0f}, {0, 1, 1.0f}}, 3, 2};
  CHECK(!data::item_means_f(data::ratings_stats(shards_of(set))));  // constant ratings
  set = data::RatingsSet{{{0, 0, 1.0f}, {1, 1, 2.0f}}, 2, 2};
  CHECK(!data::item_means_f(data::ratings_stats(shards_of(set))));  // one rating an item: nothing within
  auto stats = data::ratings_stats(shards_of(planted(1)));
  stats.item_sums.clear();  // as a partition read one shard at a time
  CHECK(!data::item_means_f(stats));
}

TEST_CASE("shards give the items' means F of the whole set") {
  const auto whole = with_item_offsets(planted(4));
  std::vector<data::RatingsSet> shards(3, data::RatingsSet{{}, whole.users, whole.items});
  for (const data::Rating& r : whole.ratings) shards[r.user % 3].ratings.push_back(r);
  const auto one = data::item_means_f(data::ratings_stats(shards_of(whole)));
  const auto three = data::item_means_f(data::ratings_stats(shards));
  REQUIRE(one);
  REQUIRE(three);
  CHECK(*three == doctest::Approx(*one).epsilon(1e-9));
}

TEST_CASE("unset biases are settled from the data; a setting given stays; CCD++ fits none") {
  const auto offsets = data::ratings_stats(shards_of(with_item_offsets(planted(5))));
  const auto noise = data::ratings_stats(shards_of(planted(5)));
  mf::MfConfig c;
  REQUIRE(!c.biases);
  auto on = c;
  CHECK(mf::settle_biases(on, offsets));
  CHECK(on.biases == true);
  auto off = c;
  CHECK(mf::settle_biases(off, noise));
  CHECK(off.biases == false);
  auto given = c;
  given.biases = false;
  CHECK(!mf::settle_biases(given, offsets));
  CHECK(given.biases == false);
  auto ccd = c;
  ccd.update = mf::UpdateRule::kCcd;
  mf::settle_biases(ccd, offsets);
  CHECK(ccd.biases == false);
  auto unknown = noise;
  unknown.item_sums.clear();
  auto blind = c;
  CHECK(!mf::settle_biases(blind, unknown));
  CHECK(blind.biases == false);
}

TEST_CASE("plan_job settles the biases and takes the global mean only with them") {
  const data::RatingsSet no_test;
  mf::MfConfig c;
  c.epochs = 1;
  const auto with = mf::plan_job(c, shards_of(with_item_offsets(planted(6))), no_test);
  CHECK(with.config.biases == true);
  const auto stats = data::ratings_stats(shards_of(with_item_offsets(planted(6))));
  CHECK(with.mean == doctest::Approx(stats.total().sum / static_cast<double>(stats.total().count)));
  CHECK(with.layout.stride > with.layout.width);
  const auto without = mf::plan_job(c, shards_of(planted(6)), no_test);
  CHECK(without.config.biases == false);
  CHECK(without.mean == 0.0f);
}
