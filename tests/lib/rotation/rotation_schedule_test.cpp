// tests/lib/rotation/rotation_schedule_test.cpp — the rotation schedule meets every (worker, block) pair once per phase.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <tuple>

#include "gyre/rotation/rotation_schedule.hpp"

using gyre::rotation::RingOrder;
using gyre::rotation::RotationSchedule;
using gyre::rotation::Visit;

namespace {

// Replays a schedule phase by phase and checks the properties rotation relies on.
// From `first_phase` on: a warm start far along the sequence must move the blocks the same way.
void check_schedule(int P, int d, RingOrder order, std::uint64_t seed, int phases, std::uint64_t first_phase = 0) {
  CAPTURE(P);
  CAPTURE(d);
  CAPTURE(static_cast<int>(order));
  CAPTURE(first_phase);
  const RotationSchedule s(P, d, order, seed, first_phase);
  REQUIRE(s.blocks() == P * d);
  // where[b] = worker holding block b now.
  std::vector<int> where(static_cast<std::size_t>(P * d));
  for (int w = 0; w < P; ++w)
    for (auto b : s.held_at_start(w, 0)) where[b] = w;

  for (int k = 0; k < phases; ++k) {
    std::set<std::pair<int, gyre::model::BlockId>> met;
    std::map<std::pair<std::uint32_t, gyre::model::BlockId>, int> at;  // (step, block) → worker
    for (int w = 0; w < P; ++w) {
      const auto visits = s.visits(w, static_cast<std::uint64_t>(k));
      REQUIRE(visits.size() == static_cast<std::size_t>(P * d));
      std::uint64_t expect_seq = static_cast<std::uint64_t>(k) * static_cast<std::uint64_t>(P * d);
      for (const Visit& v : visits) {
        CHECK(v.seq == expect_seq++);  // contiguous: the sequencer needs that
        CHECK(met.insert({w, v.block}).second);
        at[{v.step, v.block}] = w;
        CHECK((v.step + 1 == static_cast<std::uint32_t>(P)) == (v.next == Visit::kKeep));
      }
      // Step-0 visits are exactly the blocks the worker holds.
      std::set<gyre::model::BlockId> step0, held;
      for (const Visit& v : visits)
        if (v.step == 0) step0.insert(v.block);
      for (auto b : s.held_at_start(w, static_cast<std::uint64_t>(k))) {
        held.insert(b);
        CHECK(where[b] == w);
      }
      CHECK(step0 == held);
    }
    // Every pair exactly once.
    CHECK(met.size() == static_cast<std::size_t>(P * P * d));
    // A block visited by w at step s is sent to the worker that visits it at step s+1.
    for (int w = 0; w < P; ++w)
      for (const Visit& v : s.visits(w, static_cast<std::uint64_t>(k))) {
        if (v.next == Visit::kKeep) {
          where[v.block] = w;
        } else {
          CHECK(at.at({v.step + 1, v.block}) == v.next);
        }
      }
  }
}

}  // namespace

TEST_CASE("every (worker, block) pair exactly once per phase, fixed ring") {
  for (int P : {1, 2, 3, 4, 7})
    for (int d : {1, 2, 3}) check_schedule(P, d, RingOrder::kFixed, 1, 4);
}

TEST_CASE("every (worker, block) pair exactly once per phase, random ring per phase") {
  for (int P : {2, 3, 5, 8})
    for (int d : {1, 2, 4})
      for (std::uint64_t seed : {1u, 7u}) check_schedule(P, d, RingOrder::kRandom, seed, 5);
}

TEST_CASE("the blocks move as visited across the random rings' period, and from any phase a warm start names") {
  const auto period = static_cast<int>(gyre::rotation::kRingPeriod);
  check_schedule(3, 1, RingOrder::kRandom, 5, period + 40);
  check_schedule(4, 2, RingOrder::kRandom, 9, 6, gyre::rotation::kRingPeriod - 3);
  for (const RingOrder order : {RingOrder::kFixed, RingOrder::kRandom})
    for (const std::uint64_t first : {std::uint64_t{2'000'000'000}, std::uint64_t{INT64_MAX} - 2, UINT64_MAX - 3})
      check_schedule(5, 2, order, 3, 3, first);
}

TEST_CASE("where the groups stand after k phases is the walk of k phases, for k across several periods") {
  // The walk by hand: in phase k each group moves to the worker before its own in ring k.
  const int P = 5;
  const RotationSchedule s(P, 1, RingOrder::kRandom, 11);
  std::vector<int> holder = {0, 1, 2, 3, 4};  // of group g
  for (std::uint64_t k = 0; k <= 3 * gyre::rotation::kRingPeriod + 7; ++k) {
    if (k % 97 == 0 || k % gyre::rotation::kRingPeriod < 2) {
      CAPTURE(k);
      for (int g = 0; g < P; ++g)
        CHECK(s.held_at_start(holder[static_cast<std::size_t>(g)], k) == s.group_blocks(g));
    }
    const auto r = s.ring(k);
    for (int& w : holder) {
      const auto at = std::find(r.begin(), r.end(), w) - r.begin();
      w = r[static_cast<std::size_t>((at + P - 1) % P)];
    }
  }
  CHECK(s.ring(5) == s.ring(5 + gyre::rotation::kRingPeriod));  // the period the shortcut relies on
}

TEST_CASE("random ring orders are seeded permutations that change per phase") {
  const RotationSchedule a(8, 1, RingOrder::kRandom, 42), b(8, 1, RingOrder::kRandom, 42);
  const RotationSchedule c(8, 1, RingOrder::kRandom, 43);
  CHECK(a.ring(3) == b.ring(3));
  CHECK(a.ring(3) != a.ring(4));
  CHECK(a.ring(3) != c.ring(3));
  auto r = a.ring(5);
  std::sort(r.begin(), r.end());
  CHECK(r == std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7});
  const RotationSchedule fixed(4, 2, RingOrder::kFixed, 42);
  CHECK(fixed.ring(9) == std::vector<int>{0, 1, 2, 3});
}

TEST_CASE("a schedule that starts at phase k (a warm start) goes on exactly as a fresh one from phase k") {
  for (const RingOrder order : {RingOrder::kFixed, RingOrder::kRandom})
    for (const std::uint64_t k : {1u, 5u, 10u}) {
      CAPTURE(k);
      const RotationSchedule fresh(3, 2, order, 7), later(3, 2, order, 7, k);
      for (std::uint64_t phase = 0; phase < 4; ++phase) {
        CHECK(later.ring(phase) == fresh.ring(k + phase));
        for (int w = 0; w < 3; ++w) {
          CHECK(later.held_at_start(w, phase) == fresh.held_at_start(w, k + phase));
          const auto a = later.visits(w, phase), b = fresh.visits(w, k + phase);
          REQUIRE(a.size() == b.size());
          for (std::size_t i = 0; i < a.size(); ++i) {
            // The visits are the same; their phase and sequence number are the caller's own.
            CHECK(a[i].block == b[i].block);
            CHECK(a[i].next == b[i].next);
            CHECK(a[i].phase == phase);
          }
        }
      }
    }
}

TEST_CASE("invalid shapes are refused") {
  CHECK_THROWS_AS(RotationSchedule(0, 1, RingOrder::kFixed, 1), std::invalid_argument);
  CHECK_THROWS_AS(RotationSchedule(2, 0, RingOrder::kFixed, 1), std::invalid_argument);
}
