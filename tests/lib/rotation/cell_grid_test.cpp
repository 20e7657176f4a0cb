// tests/lib/rotation/cell_grid_test.cpp — the dynamic sweep over a worker's grid: every slice of every cell once, in order, never two owners of a row.
#include <doctest/doctest.h>
#include <oneapi/tbb/task_arena.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <limits>
#include <memory>
#include <span>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <tuple>
#include <vector>

#include "gyre/rotation/cell_grid.hpp"

using namespace gyre::rotation;

namespace {

constexpr std::uint32_t kUnlimitedStay = std::numeric_limits<std::uint32_t>::max();

// What a sweep did: each call in the order calls began, and whether two running calls ever
// shared a group or a sub-range.
struct SweepLog {
  explicit SweepLog(std::uint32_t groups)
      : group_owners(std::make_unique<std::atomic<int>[]>(groups)), sub_owners(std::make_unique<std::atomic<int>[]>(groups)) {}
  std::mutex mutex;
  std::vector<std::tuple<std::uint32_t, std::uint32_t, std::uint32_t>> calls;
  std::unique_ptr<std::atomic<int>[]> group_owners, sub_owners;
  std::atomic<bool> shared{false};
  std::atomic<int> running{0}, most_running{0};
  bool wait_for_company = false;
  std::atomic<bool> waited{false};

  void cell(std::uint32_t g, std::uint32_t s, std::uint32_t slice) {
    if (group_owners[g]++ != 0 || sub_owners[s]++ != 0) shared = true;
    const int now = ++running;
    for (int seen = most_running; now > seen && !most_running.compare_exchange_weak(seen, now);) {}
    {
      std::lock_guard lock(mutex);
      calls.emplace_back(g, s, slice);
    }
    // Long enough that the other threads claim cells meanwhile. The first call, when asked,
    // holds its cell until a second one runs beside it (2 s at most: a busy machine may be slow
    // to start the arena's threads).
    if (wait_for_company && !waited.exchange(true)) {
      const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(2);
      while (running.load() < 2 && std::chrono::steady_clock::now() < give_up)
        std::this_thread::sleep_for(std::chrono::microseconds(100));
    }
    std::this_thread::sleep_for(std::chrono::microseconds(200));
    --running;
    --group_owners[g];
    --sub_owners[s];
  }
};

}  // namespace

TEST_CASE("the dynamic sweep runs every slice of every cell once, a cell's slices in order, never two owners of a row") {
  for (const std::uint32_t groups : {1u, 3u, 5u}) {
    for (const int threads : {1, 2, 4}) {
     for (const std::uint32_t max_stay : {1u, 2u, kUnlimitedStay}) {
      CAPTURE(groups);
      CAPTURE(threads);
      CAPTURE(max_stay);
      constexpr std::uint32_t kSlices = 4;
      SweepLog log(groups);
      log.wait_for_company = threads > 1 && groups >= 3;
      oneapi::tbb::task_arena arena(4);
      arena.execute([&] {
        dynamic_sweep(groups, kSlices, threads, max_stay, [&](std::uint32_t g, std::uint32_t s, std::uint32_t slice) { log.cell(g, s, slice); });
      });
      CHECK_FALSE(log.shared.load());
      CHECK(log.most_running.load() <= std::min<int>(threads, static_cast<int>(groups)));
      REQUIRE(log.calls.size() == std::size_t{groups} * groups * kSlices);
      std::vector<std::uint32_t> next(std::size_t{groups} * groups, 0);
      for (const auto& [g, s, slice] : log.calls) CHECK(slice == next[g * groups + s]++);
      for (const std::uint32_t n : next) CHECK(n == kSlices);
      // Enough cells for a second thread to find a free one: it ran beside the first.
      if (log.wait_for_company) CHECK(log.most_running.load() > 1);
     }
    }
  }
}

TEST_CASE("on one thread the dynamic sweep stays on a sub-range up to max_stay cells, longer only where no other has a least-done cell") {
  constexpr std::uint32_t kGroups = 5, kSlices = 4;
  for (const std::uint32_t max_stay : {1u, 2u, 3u, kUnlimitedStay}) {
    CAPTURE(max_stay);
    SweepLog log(kGroups);
    dynamic_sweep(kGroups, kSlices, 1, max_stay, [&](std::uint32_t g, std::uint32_t s, std::uint32_t slice) { log.cell(g, s, slice); });
    REQUIRE(log.calls.size() == kGroups * kGroups * kSlices);
    // Replays the sweep: before each call, the slices each cell had done.
    std::vector<std::uint32_t> done(kGroups * kGroups, 0);
    std::uint32_t run = 0, longest = 0, previous_sub = kGroups;
    for (const auto& [g, s, slice] : log.calls) {
      std::uint32_t fewest = kSlices;
      for (const std::uint32_t n : done) fewest = std::min(fewest, n);
      CHECK(slice == fewest);  // the least-done first, whatever the stay
      const std::uint32_t previous_run = run;
      run = s == previous_sub ? run + 1 : 1;
      longest = std::max(longest, run);
      bool other_sub_had_one = false;
      for (std::uint32_t c = 0; c < done.size(); ++c) other_sub_had_one |= c % kGroups != s && done[c] == fewest;
      if (run > max_stay) CHECK_FALSE(other_sub_had_one);
      // Within its stay the thread keeps to its sub-range while that has a least-done cell.
      if (run == 1 && previous_sub < kGroups && previous_run < max_stay) {
        bool previous_had_one = false;
        for (std::uint32_t h = 0; h < kGroups; ++h) previous_had_one |= done[h * kGroups + previous_sub] == fewest;
        CHECK_FALSE(previous_had_one);
      }
      ++done[g * kGroups + s];
      previous_sub = s;
    }
    // Unbounded, a stay covers all of a sub-range's cells of a slice (and may go on into the next).
    if (max_stay == kUnlimitedStay) CHECK(longest >= kGroups);
    else CHECK(longest >= max_stay);
  }
}

TEST_CASE("on one thread the dynamic sweep takes the least-done cell: every cell's slice s before any cell's s + 1") {
  constexpr std::uint32_t kGroups = 3, kSlices = 3;
  SweepLog log(kGroups);
  dynamic_sweep(kGroups, kSlices, 1, kUnlimitedStay, [&](std::uint32_t g, std::uint32_t s, std::uint32_t slice) { log.cell(g, s, slice); });
  REQUIRE(log.calls.size() == kGroups * kGroups * kSlices);
  for (std::size_t i = 0; i < log.calls.size(); ++i) CHECK(std::get<2>(log.calls[i]) == i / (kGroups * kGroups));
}

TEST_CASE("a cell that throws stops the dynamic sweep: no new cell starts, the exception reaches the caller") {
  constexpr std::uint32_t kGroups = 4, kSlices = 8;
  for (const int threads : {1, 2}) {
    CAPTURE(threads);
    std::atomic<int> calls{0}, calls_at_throw{0};
    oneapi::tbb::task_arena arena(2);
    arena.execute([&] {
      CHECK_THROWS_WITH_AS(dynamic_sweep(kGroups, kSlices, threads, kUnlimitedStay,
                                         [&](std::uint32_t g, std::uint32_t s, std::uint32_t slice) {
                                           const int n = ++calls;
                                           if (g == 1 && s == 2 && slice == 1) {
                                             calls_at_throw = n;
                                             throw std::runtime_error("cell (1, 2) failed");
                                           }
                                         }),
                           "cell (1, 2) failed", std::runtime_error);
    });
    // Alone, the thread stopped at the throw. With two, the other one may start cells until it
    // sees the failure (how many depends on the machine's timing), but the sweep still stops
    // and reports it.
    if (threads == 1) CHECK(calls.load() == calls_at_throw.load());
    CHECK(calls_at_throw.load() > 0);
  }
}

TEST_CASE("permute_by_cell buckets items in place, the same multiset, with 2-byte and 4-byte cell ids") {
  for (const std::size_t cells : {std::size_t{1}, std::size_t{7}, std::size_t{1} << 16, (std::size_t{1} << 16) + 5}) {
    CAPTURE(cells);
    std::vector<std::uint64_t> items(20000);
    std::uint64_t x = 12345;
    for (auto& v : items) v = (x = x * 6364136223846793005ull + 1442695040888963407ull) >> 11;
    const auto cell_of = [&](std::uint64_t v) { return static_cast<std::size_t>(v % cells); };
    std::vector<std::uint64_t> sorted_before = items;
    std::sort(sorted_before.begin(), sorted_before.end());
    const auto begin = permute_by_cell(std::span<std::uint64_t>(items), cells, cell_of);
    REQUIRE(begin.size() == cells + 1);
    CHECK(begin.front() == 0);
    CHECK(begin.back() == items.size());
    for (std::size_t c = 0; c < cells; ++c)
      for (std::uint64_t i = begin[c]; i < begin[c + 1]; ++i) REQUIRE(cell_of(items[i]) == c);
    std::vector<std::uint64_t> sorted_after = items;
    std::sort(sorted_after.begin(), sorted_after.end());
    CHECK(sorted_after == sorted_before);
  }
}

TEST_CASE("cap_spans narrows only the ranges that are too wide, keeps the cuts in order, and refuses what cannot fit") {
  // Within the cap: untouched.
  std::vector<std::uint32_t> fine{0, 3, 9, 10};
  cap_spans(fine, 6);
  CHECK(fine == std::vector<std::uint32_t>{0, 3, 9, 10});
  // A long last range (rare rows at the end, as ratings' long tail gives) is spread backwards.
  std::vector<std::uint32_t> tail{0, 1, 2, 20};
  cap_spans(tail, 8);
  CHECK(tail == std::vector<std::uint32_t>{0, 4, 12, 20});
  // A long first range is cut short forwards.
  std::vector<std::uint32_t> head{0, 18, 19, 20};
  cap_spans(head, 8);
  CHECK(head == std::vector<std::uint32_t>{0, 8, 16, 20});
  // Exactly full, from balanced cuts of skewed counts.
  std::vector<std::uint64_t> counts(24, 1);
  counts[0] = 1000;
  auto cuts = balanced_cuts(counts, 3);
  cap_spans(cuts, 8);
  CHECK(cuts == std::vector<std::uint32_t>{0, 8, 16, 24});
  for (std::uint32_t cap : {1u, 5u, 7u}) {
    std::vector<std::uint32_t> any = balanced_cuts(counts, 5);
    if (24 > 5 * cap) {
      CHECK_THROWS_AS(cap_spans(any, cap), std::invalid_argument);
      continue;
    }
    cap_spans(any, cap);
    CHECK(any.front() == 0);
    CHECK(any.back() == 24);
    for (std::size_t p = 1; p < any.size(); ++p) {
      CHECK(any[p] >= any[p - 1]);
      CHECK(any[p] - any[p - 1] <= cap);
    }
  }
}
