// tests/lib/ps/clocked_store_test.cpp — the store a parameter server and a peer-to-peer owner share: fold order, clocks, held reads.
#include <doctest/doctest.h>

#include <cstdint>
#include <stdexcept>
#include <vector>

#include "gyre/ps/barrier.hpp"
#include "gyre/ps/clocked_store.hpp"

using gyre::ps::ClockedStore;
using gyre::ps::ClockedUpdate;
using gyre::ps::HeldRead;
using gyre::ps::Key;
using gyre::ps::Value;

namespace {

// A fold that records the order it was called in (the value's last entry), so order is visible.
ClockedStore recording_store(bool ordered, std::vector<double>& order) {
  return ClockedStore(3, ordered, [&order](Key, Value& v, std::span<const double> u) {
    v[0] += u[0];
    order.push_back(u[0]);
  }, {}, 1, /*count_pushes=*/true);
}

ClockedUpdate push(std::int64_t step_end, int member, double value, Key key = 7) {
  return {step_end, member, false, key, Value{value}};
}

}  // namespace

TEST_CASE("ordered: updates are folded once every member has ended their step, by (step, member), whatever the arrival order") {
  std::vector<double> order;
  ClockedStore store = recording_store(true, order);
  // Arrival order: member 2's step 1, member 0's step 2, member 0's step 1 (twice), member 1's step 1.
  store.take(push(1, 2, 21));
  store.take(push(2, 0, 2));
  store.take(push(1, 0, 1));
  store.take(push(1, 0, 1.5));
  store.take(push(1, 1, 11));
  CHECK(order.empty());
  store.advance(0, 2);
  store.advance(2, 1);
  CHECK(order.empty());  // member 1 has not ended step 1
  store.advance(1, 1);
  CHECK(store.slowest() == 1);
  CHECK(order == std::vector<double>{1, 1.5, 11, 21});  // step 1: member 0 (in the order taken), 1, 2
  store.advance(1, 2);
  store.advance(2, 2);
  CHECK(order == std::vector<double>{1, 1.5, 11, 21, 2});
  CHECK(store.at(7)[0] == doctest::Approx(36.5));
  CHECK(store.pushes_folded().at(7) == 5);
}

TEST_CASE("unordered: updates are folded as they come; a set replaces the value and is not counted as a push") {
  std::vector<double> order;
  ClockedStore store = recording_store(false, order);
  store.take(push(5, 2, 3));
  store.take(push(1, 0, 4));
  CHECK(order == std::vector<double>{3, 4});
  store.take({1, 1, true, 7, Value{-1}});
  CHECK(store.at(7)[0] == -1);
  CHECK(store.pushes_folded().at(7) == 2);
}

TEST_CASE("a read is held until every member has reached its clock; a finished member holds nobody back") {
  std::vector<double> order;
  ClockedStore store = recording_store(true, order);
  store.hold(HeldRead{1, 10, 2, {7}});
  store.hold(HeldRead{2, 11, 1, {7}});
  CHECK(store.held_reads() == 2);
  store.advance(0, 1);
  store.advance(1, 1);
  CHECK(store.take_due_reads().empty());
  CHECK(store.slowest_member() == 2);
  store.advance(2, gyre::ps::Barrier::kFinished);
  auto due = store.take_due_reads();
  REQUIRE(due.size() == 1);
  CHECK(due[0].request == 11);
  store.advance(0, 2);
  store.advance(1, 2);
  due = store.take_due_reads();
  REQUIRE(due.size() == 1);
  CHECK(due[0].request == 10);
  CHECK(store.take_due_reads().empty());
}

TEST_CASE("keys start from the initial values, which must have the layout's size") {
  ClockedStore zeros(1, false, {}, {}, 3);
  CHECK(zeros.at(4) == Value(3, 0.0));
  CHECK(zeros.holds(4));
  CHECK_FALSE(zeros.holds(5));
  zeros.take({1, 0, false, 4, Value{1, 2, 3}});
  CHECK(zeros.at(4) == Value{1, 2, 3});
  CHECK(zeros.pushes_folded().empty());  // not counted unless asked
  ClockedStore wrong(1, false, {}, [](Key) { return Value(2, 1.0); }, 3);
  CHECK_THROWS_AS(wrong.at(0), std::logic_error);
}
