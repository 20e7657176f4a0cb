// tests/lib/data/partition_test.cpp — user partitioning: whole users per shard, balance, determinism.
#include <doctest/doctest.h>

#include "gyre/data/partition.hpp"
#include "gyre/data/planted_ratings.hpp"

using namespace gyre::data;

namespace {

RatingsSet skewed_set() {
  PlantedRatingsOptions o;
  o.users = 2000;
  o.items = 800;
  o.ratings = 40'000;
  o.seed = 11;
  return generate_planted_ratings(o).train;
}

}  // namespace

TEST_CASE("partition: every rating of a user lands in that user's shard, in input order") {
  const RatingsSet set = skewed_set();
  const UserPartition part = partition_users(set, 4);
  REQUIRE(part.parts == 4);
  REQUIRE(part.user_to_part.size() == set.users);
  const auto shards = split_by_user(set, part);
  REQUIRE(shards.size() == 4);
  std::size_t total = 0;
  std::vector<std::size_t> next(4, 0);
  for (const Rating& r : set.ratings) {
    const auto p = part.user_to_part[r.user];
    REQUIRE(next[p] < shards[p].ratings.size());
    const Rating& s = shards[p].ratings[next[p]++];
    CHECK((s.user == r.user && s.item == r.item && s.value == r.value));
  }
  for (const auto& s : shards) {
    total += s.ratings.size();
    CHECK(s.users == set.users);
    CHECK(s.items == set.items);
  }
  CHECK(total == set.ratings.size());
}

TEST_CASE("partition: greedy balancing is tight") {
  const RatingsSet set = skewed_set();
  for (const std::uint32_t parts : {1u, 2u, 3u, 8u}) {
    const double b = balance(split_by_user(set, partition_users(set, parts)));
    INFO(parts << " parts: balance " << b);
    CHECK(b >= 1.0);
    CHECK(b < 1.01);
  }
}

TEST_CASE("partition: deterministic, heaviest user first, ratingless users round-robin") {
  RatingsSet set;
  set.users = 6;
  set.items = 2;
  // user 1: 3 ratings, user 4: 2, user 0: 1; users 2, 3, 5 have none.
  set.ratings = {{1, 0, 1}, {4, 0, 1}, {1, 1, 1}, {0, 0, 1}, {4, 1, 1}, {1, 0, 2}};
  const UserPartition a = partition_users(set, 2);
  CHECK(a.user_to_part == std::vector<std::uint32_t>{1, 0, 0, 1, 1, 1});
  CHECK(partition_users(set, 2).user_to_part == a.user_to_part);
  CHECK(balance(split_by_user(set, a)) == doctest::Approx(1.0));
}

TEST_CASE("partition: more parts than users leaves empty shards and a finite balance") {
  RatingsSet set;
  set.users = 2;
  set.items = 1;
  set.ratings = {{0, 0, 1}, {1, 0, 1}};
  const auto shards = split_by_user(set, partition_users(set, 4));
  REQUIRE(shards.size() == 4);
  CHECK(balance(shards) == doctest::Approx(2.0));
  CHECK_THROWS_AS(partition_users(set, 0), std::invalid_argument);
}
