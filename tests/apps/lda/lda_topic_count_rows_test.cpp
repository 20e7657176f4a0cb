// tests/apps/lda/lda_topic_count_rows_test.cpp — sparse topic-count rows: built from token topics, dense rows, other rows or planned sizes, and read back.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <vector>

#include "gyre/wire/codec.hpp"
#include "lda/topic_count_rows.hpp"

using gyre::lda::TopicCountRows;

TEST_CASE("topic-count rows keep each row's non-zero topics ascending with their counts") {
  TopicCountRows rows(5);
  std::vector<std::int32_t> scratch(5, 0);
  const std::vector<std::uint16_t> first{4, 1, 4, 0, 4, 1};
  rows.add_from_topics(first, scratch);
  CHECK(std::all_of(scratch.begin(), scratch.end(), [](std::int32_t n) { return n == 0; }));
  rows.add_from_topics(std::span<const std::uint16_t>{}, scratch);  // an empty document keeps its row
  rows.add_dense(std::vector<std::int32_t>{0, 0, 7, 0, 1});

  REQUIRE(rows.rows() == 3);
  CHECK(rows.entries() == 5);
  CHECK(rows.topics_of(0).to_vector() == std::vector<std::uint32_t>{0, 1, 4});
  CHECK(std::vector<std::int32_t>(rows.counts_of(0).begin(), rows.counts_of(0).end()) == std::vector<std::int32_t>{1, 2, 3});
  CHECK(rows.dense(0) == std::vector<std::int32_t>{1, 2, 0, 0, 3});
  CHECK(rows.topics_of(1).empty());
  CHECK(rows.dense(1) == std::vector<std::int32_t>(5, 0));
  CHECK(rows.dense(2) == std::vector<std::int32_t>{0, 0, 7, 0, 1});
  CHECK(rows.count(0, 4) == 3);
  CHECK(rows.count(0, 2) == 0);
  CHECK(rows.count(2, 2) == 7);
  CHECK(rows.dense() == std::vector<std::int32_t>{1, 2, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0, 7, 0, 1});
  CHECK(rows.column_sums() == std::vector<std::int64_t>{1, 2, 7, 0, 4});

  // Rows planned by size and filled out of order, as a model's word rows come from its blocks.
  const std::vector<std::uint64_t> sizes{3, 0, 2};
  TopicCountRows planned = TopicCountRows::with_sizes(5, sizes);
  planned.set_row(2, std::vector<std::int32_t>{0, 0, 7, 0, 1});
  planned.set_row(0, std::vector<std::int32_t>{1, 2, 0, 0, 3});
  CHECK(planned == rows);

  // Rows copied in another order, as a model's assembly puts documents in id order.
  TopicCountRows copy(5);
  for (const std::size_t d : {2, 0, 1}) copy.add_row_of(rows, d);
  CHECK(copy.dense(0) == rows.dense(2));
  CHECK(copy.dense(1) == rows.dense(0));
  CHECK(copy.dense(2) == rows.dense(1));
  TopicCountRows same(5);
  for (const std::size_t d : {0, 1, 2}) same.add_row_of(rows, d);
  CHECK(same == rows);
  CHECK_FALSE(copy == rows);
}

TEST_CASE("topic-count rows refuse a topic beyond K, a negative count, rows of another K and a row off its plan") {
  TopicCountRows rows(3);
  std::vector<std::int32_t> scratch(3, 0);
  CHECK_THROWS_AS(rows.add_from_topics(std::vector<std::uint16_t>{1, 3}, scratch), std::invalid_argument);
  std::vector<std::int32_t> wide(4, 0);
  CHECK_THROWS_AS(rows.add_from_topics(std::vector<std::uint16_t>{0}, wide), std::invalid_argument);
  CHECK_THROWS_AS(rows.add_dense(std::vector<std::int32_t>{0, -1, 0}), std::invalid_argument);
  CHECK_THROWS_AS(rows.add_dense(std::vector<std::int32_t>{0, 1}), std::invalid_argument);
  TopicCountRows other(4);
  other.add_dense(std::vector<std::int32_t>{1, 0, 0, 0});
  CHECK_THROWS_AS(rows.add_row_of(other, 0), std::invalid_argument);
  const std::vector<std::uint64_t> sizes{1};
  TopicCountRows planned = TopicCountRows::with_sizes(3, sizes);
  CHECK_THROWS_AS(planned.set_row(0, std::vector<std::int32_t>{1, 1, 0}), std::invalid_argument);
  CHECK_THROWS_AS(planned.set_row(1, std::vector<std::int32_t>{1, 0, 0}), std::invalid_argument);
  const std::vector<std::uint64_t> too_many{4};
  CHECK_THROWS_AS(TopicCountRows::with_sizes(3, too_many), std::invalid_argument);
  // Nothing refused left a trace.
  CHECK(rows.rows() == 0);
  CHECK(rows.entries() == 0);
  CHECK(scratch == std::vector<std::int32_t>(3, 0));
}

TEST_CASE("topic-count rows encoded as one body decode to the same rows; a damaged body is a DecodeError") {
  TopicCountRows rows(6);
  std::vector<std::int32_t> scratch(6, 0);
  rows.add_from_topics(std::vector<std::uint16_t>{5, 0, 5, 2}, scratch);
  rows.add_from_topics(std::span<const std::uint16_t>{}, scratch);
  rows.add_dense(std::vector<std::int32_t>{0, 9, 0, 0, 0, 0});
  const std::vector<std::byte> body = rows.encode();
  CHECK(body.size() == 3 * 4 + rows.entries() * 6);
  CHECK(TopicCountRows::decode(6, body, 3, "") == rows);

  const auto refused = [](std::uint32_t K, const std::vector<std::byte>& bytes, std::size_t n) {
    CHECK_THROWS_AS(TopicCountRows::decode(K, bytes, n, "rows: "), gyre::wire::DecodeError);
  };
  refused(6, body, 4);                                                      // fewer rows than asked for
  refused(6, body, 2);                                                      // bytes left over
  refused(6, std::vector<std::byte>(body.begin(), body.end() - 1), 3);      // truncated
  refused(5, body, 3);                                                      // topic 5 is not below K = 5
  // Row 0 as topics {0, 0}: not ascending; and a zero count.
  TopicCountRows one(6);
  one.add_dense(std::vector<std::int32_t>{1, 2, 0, 0, 0, 0});
  auto bad = one.encode();
  bad[6] = bad[4];  // the second topic becomes the first's
  refused(6, bad, 1);
  bad = one.encode();
  for (int i = 0; i < 4; ++i) bad[8 + static_cast<std::size_t>(i)] = std::byte{0};  // the first count is 0
  refused(6, bad, 1);
  // A row claiming 2^32 - 1 entries in a few bytes is refused before anything is sized for it.
  refused(6, std::vector<std::byte>{std::byte{0xFF}, std::byte{0xFF}, std::byte{0xFF}, std::byte{0xFF}, std::byte{0}}, 1);
}

TEST_CASE("topic-count rows of more than 65 535 topics keep 32-bit topics, and their body round-trips") {
  constexpr std::uint32_t K = 70000;
  TopicCountRows rows(K);
  std::vector<std::int32_t> scratch(K, 0);
  rows.add_from_topics(std::vector<std::uint32_t>{69999, 3, 65536, 69999}, scratch);
  rows.add_sparse(std::vector<std::uint32_t>{65535, 65536}, std::vector<std::int32_t>{4, 5});
  std::vector<std::int32_t> dense(K, 0);
  dense[66000] = 7;
  rows.add_dense(dense);
  CHECK(rows.topics_of(0).to_vector() == std::vector<std::uint32_t>{3, 65536, 69999});
  CHECK(std::vector<std::int32_t>(rows.counts_of(0).begin(), rows.counts_of(0).end()) == std::vector<std::int32_t>{1, 1, 2});
  CHECK(rows.count(0, 69999) == 2);
  CHECK(rows.count(1, 65535) == 4);
  CHECK(rows.count(2, 66000) == 7);
  CHECK(rows.count(2, 66000 - 65536) == 0);  // no topic wraps to 16 bits
  CHECK(rows.column_sums()[65536] == 6);
  const auto body = rows.encode();
  CHECK(body.size() == 3 * 4 + 6 * (4 + 4));  // 32-bit topics on the wire too
  CHECK(TopicCountRows::decode(K, body, 3, "") == rows);
  CHECK_THROWS_AS(rows.add_from_topics(std::vector<std::uint32_t>{70000}, scratch), std::invalid_argument);
}
