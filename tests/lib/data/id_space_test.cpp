// tests/lib/data/id_space_test.cpp — dense renumbering: memory follows the data, order and original ids are kept.
#include <doctest/doctest.h>

#include "gyre/data/id_space.hpp"

using namespace gyre::data;

TEST_CASE("sparse user and item ids are renumbered together over train and test, in id order (defect 6)") {
  RatingsSet train{{{0, 7, 1.0f}, {2147483646u, 7, 2.0f}, {100000000u, 3, 3.0f}}, 2147483647u, 8};
  RatingsSet test{{{5, 10000000u, 1.0f}}, 6, 10000001u};
  RatingsSet* sets[] = {&train, &test};
  const IdTables ids = compact_ids(sets);
  CHECK(ids.users.original == std::vector<std::uint32_t>{0, 5, 100000000u, 2147483646u});
  CHECK(ids.items.original == std::vector<std::uint32_t>{3, 7, 10000000u});
  CHECK(train.users == 4);
  CHECK(train.items == 3);
  CHECK(test.users == 4);
  CHECK(train.ratings[1].user == 3);
  CHECK(train.ratings[1].item == 1);
  CHECK(test.ratings[0].user == 1);
  CHECK(test.ratings[0].item == 2);
  restore_ids(train, ids);
  CHECK(train.ratings[1].user == 2147483646u);
  CHECK(train.ratings[2].item == 3);
}

TEST_CASE("ids that are already dense 0..n-1 come back unchanged") {
  RatingsSet set{{{1, 0, 1.0f}, {0, 2, 1.0f}, {2, 1, 1.0f}}, 3, 3};
  const auto before = set.ratings;
  RatingsSet* sets[] = {&set};
  const IdTables ids = compact_ids(sets);
  CHECK(ids.users.identity());
  CHECK(ids.items.identity());
  for (std::size_t i = 0; i < before.size(); ++i) CHECK(set.ratings[i].user == before[i].user);
}

TEST_CASE("feature columns no sample uses are dropped; names follow their columns") {
  RegressionSet set;
  set.features = 10000001;
  const std::uint32_t c0[] = {0, 9999999};
  const double v0[] = {1.0, 2.0};
  set.add_row(0, 1.0, c0, v0);
  const std::uint32_t c1[] = {4};
  const double v1[] = {3.0};
  set.add_row(1, 2.0, c1, v1);
  RegressionSet* sets[] = {&set};
  const IdTable columns = compact_features(sets);
  CHECK(columns.original == std::vector<std::uint32_t>{0, 4, 9999999});
  CHECK(set.features == 3);
  CHECK(set.cols == std::vector<std::uint32_t>{0, 2, 1});
}

TEST_CASE("a partition's ids joined by a test set's are numbered as compact_ids over train and test together") {
  const RatingsSet train_input{{{40, 7, 1.0f}, {9, 2, 2.0f}, {100000000u, 7, 3.0f}, {9, 30, 4.0f}}, 100000001u, 31};
  const RatingsSet test_input{{{5, 30, 1.0f}, {40, 1, 2.0f}, {200000000u, 50, 3.0f}, {9, 7, 1.0f}}, 200000001u, 51};
  // As a one-process job reads them: both at once.
  RatingsSet train_all = train_input, test_all = test_input;
  RatingsSet* both[] = {&train_all, &test_all};
  const IdTables expected = compact_ids(both);
  // As a process beside a partition does: the training ids first, then the test set's joined.
  RatingsSet train_part = train_input, test_part = test_input;
  RatingsSet* train_only[] = {&train_part};
  const IdTables known = compact_ids(train_only);
  const JoinedIds joined = join_ids(known, test_part);
  CHECK(joined.tables.users.original == expected.users.original);
  CHECK(joined.tables.items.original == expected.items.original);
  CHECK(test_part.users == test_all.users);
  CHECK(test_part.items == test_all.items);
  for (std::size_t i = 0; i < test_part.ratings.size(); ++i) {
    CHECK(test_part.ratings[i].user == test_all.ratings[i].user);
    CHECK(test_part.ratings[i].item == test_all.ratings[i].item);
  }
  for (std::size_t i = 0; i < train_part.ratings.size(); ++i) {
    CHECK(joined.users_from_known[train_part.ratings[i].user] == train_all.ratings[i].user);
    CHECK(joined.items_from_known[train_part.ratings[i].item] == train_all.ratings[i].item);
  }
}

TEST_CASE("distinct_ids: ascending and once each, for dense ids (bitmap) and very sparse ones (sorted)") {
  const std::vector<Rating> dense{{5, 1, 1}, {2, 9, 1}, {5, 3, 1}, {0, 9, 1}, {2, 1, 1}};
  CHECK(distinct_ids(dense, &Rating::user) == std::vector<std::uint32_t>{0, 2, 5});
  CHECK(distinct_ids(dense, &Rating::item) == std::vector<std::uint32_t>{1, 3, 9});
  const std::vector<Rating> sparse{{4000000000u, 0, 1}, {7, 0, 1}, {4000000000u, 0, 1}, {3000000000u, 0, 1}};
  CHECK(distinct_ids(sparse, &Rating::user) == std::vector<std::uint32_t>{7, 3000000000u, 4000000000u});
  CHECK(distinct_ids({}, &Rating::user).empty());
}
