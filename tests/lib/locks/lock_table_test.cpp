// tests/lib/locks/lock_table_test.cpp — the lock service's grant rule, without a transport.
#include <doctest/doctest.h>

#include <vector>

#include "gyre/locks/lock_table.hpp"

using namespace gyre::locks;
using Keys = std::vector<LockKey>;

namespace {

const auto t0 = LockTable::Clock::time_point{};

LockTable::Request all(int rank, std::uint64_t id, Keys keys, LockWait wait = LockWait::kUntilFree) {
  return {rank, id, LockMode::kAll, wait, 0, std::move(keys)};
}

LockTable::Request any(int rank, std::uint64_t id, Keys candidates, std::uint32_t count,
                       LockWait wait = LockWait::kUntilFree) {
  return {rank, id, LockMode::kAny, wait, count, std::move(candidates)};
}

}  // namespace

TEST_CASE("a multi-key request holds nothing until it can hold everything") {
  LockTable t(6);
  auto a = t.submit(all(1, 1, {1}), t0);
  REQUIRE(a.size() == 1);
  CHECK(a[0].keys == Keys{1});

  CHECK(t.submit(all(2, 1, {0, 1, 2}), t0).empty());
  CHECK(t.waiting(2));
  CHECK_FALSE(t.holder(0));  // not taken while 1 is missing
  CHECK_FALSE(t.holder(2));

  a = t.release(1, Keys{1}, t0);
  REQUIRE(a.size() == 1);
  CHECK(a[0].rank == 2);
  CHECK(a[0].keys == Keys{0, 1, 2});
  CHECK(t.held_by(2) == Keys{0, 1, 2});
  CHECK(t.stats().grants == 2);
  CHECK(t.stats().waits == 1);
  CHECK(t.stats().max_queue == 1);
  CHECK(t.stats().waiting == 0);
}

TEST_CASE("waiters are served first come, first served: a later request may not take a key an earlier waiter wants") {
  LockTable t(4);
  t.submit(all(1, 1, {0}), t0);
  CHECK(t.submit(all(2, 1, {0, 1}), t0).empty());
  // Key 1 is free, but rank 2 asked for it first.
  auto a = t.submit(all(3, 1, {1}, LockWait::kNoWait), t0);
  REQUIRE(a.size() == 1);
  CHECK(a[0].keys.empty());
  CHECK(t.stats().refusals == 1);
  CHECK(t.submit(all(3, 2, {1}), t0).empty());
  CHECK(t.stats().max_queue == 2);

  a = t.release(1, Keys{0}, t0);  // rank 2 first, then rank 3 once rank 2 lets go
  REQUIRE(a.size() == 1);
  CHECK(a[0].rank == 2);
  a = t.release(2, Keys{0, 1}, t0);
  REQUIRE(a.size() == 1);
  CHECK(a[0].rank == 3);
  CHECK(a[0].id == 2);
}

TEST_CASE("acquire_any takes the first free candidates in list order, or waits for enough of them") {
  LockTable t(6);
  t.submit(all(1, 1, {0, 2}), t0);
  auto a = t.submit(any(2, 1, {2, 0, 5, 1, 3}, 2), t0);
  REQUIRE(a.size() == 1);
  CHECK(a[0].keys == Keys{5, 1});

  a = t.submit(any(3, 1, {0, 2}, 1, LockWait::kNoWait), t0);
  REQUIRE(a.size() == 1);
  CHECK(a[0].keys.empty());

  CHECK(t.submit(any(3, 2, {0, 2, 5}, 2), t0).empty());
  a = t.release(1, Keys{2}, t0);  // one of two is not enough
  CHECK(a.empty());
  a = t.release(1, Keys{0}, t0);
  REQUIRE(a.size() == 1);
  CHECK(a[0].keys == Keys{0, 2});
}

TEST_CASE("a waiting acquire_any reserves nothing, so it does not stall the requests behind it") {
  LockTable t(3);
  t.submit(all(1, 1, {0}), t0);
  CHECK(t.submit(any(2, 1, {0}, 1), t0).empty());
  auto a = t.submit(all(3, 1, {1}), t0);
  REQUIRE(a.size() == 1);
  CHECK(a[0].rank == 3);
}

TEST_CASE("misuse is refused naming the rank, and leaves the table as it was") {
  LockTable t(4);
  t.submit(all(1, 1, {0, 1}), t0);
  CHECK_THROWS_WITH_AS(t.release(2, Keys{1}, t0), doctest::Contains("rank 2 released key 1, which is held by rank 1"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(t.release(1, Keys{0, 3}, t0), doctest::Contains("rank 1 released key 3, which nobody holds"),
                       std::invalid_argument);
  CHECK(t.held_by(1) == Keys{0, 1});  // the valid part of a bad release was not applied
  CHECK_THROWS_WITH_AS(t.submit(all(2, 1, {4}), t0), doctest::Contains("outside [0, 4)"), std::invalid_argument);
  CHECK_THROWS_WITH_AS(t.submit(all(2, 1, {2, 2}), t0), doctest::Contains("key 2 twice"), std::invalid_argument);
  CHECK_THROWS_WITH_AS(t.submit(all(1, 2, {1}), t0), doctest::Contains("which it already holds"),
                       std::invalid_argument);
  CHECK_THROWS_AS(t.submit(any(2, 1, {2, 3}, 3), t0), std::invalid_argument);
  CHECK_THROWS_AS(t.submit(all(2, 1, {}), t0), std::invalid_argument);
  CHECK(t.submit(all(2, 1, {0}), t0).empty());
  CHECK_THROWS_WITH_AS(t.submit(all(2, 2, {3}), t0), doctest::Contains("still waiting"), std::invalid_argument);
  CHECK(t.stats().waiting == 1);
  CHECK(t.describe_holders() == "rank 1 held {0,1}");
}

TEST_CASE("the oldest hold is what the lease check looks at") {
  LockTable t(3);
  CHECK_FALSE(t.oldest_hold());
  const auto t1 = t0 + std::chrono::seconds(1);
  t.submit(all(1, 1, {2}), t0);
  t.submit(all(2, 1, {0}), t1);
  auto h = t.oldest_hold();
  REQUIRE(h);
  CHECK(h->rank == 1);
  CHECK(h->key == 2);
  t.release(1, Keys{2}, t1);
  h = t.oldest_hold();
  REQUIRE(h);
  CHECK(h->rank == 2);
  CHECK(h->since == t1);
  CHECK(t.drop_waiting().empty());
}
