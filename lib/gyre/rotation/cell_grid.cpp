// gyre/rotation/cell_grid.cpp — grid locks, the diagonal sweep and grid sizing.
#include "gyre/rotation/cell_grid.hpp"

#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/parallel_for.h>

#include <algorithm>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <stdexcept>
#include <string>

namespace gyre::rotation {

GridLocks::GridLocks(std::uint32_t groups)
    : group_busy_(std::make_unique<std::atomic<bool>[]>(groups)), sub_busy_(std::make_unique<std::atomic<bool>[]>(groups)) {}

bool GridLocks::try_acquire(std::uint32_t group, std::uint32_t sub) noexcept {
  if (group_busy_[group].exchange(true, std::memory_order_acquire)) return false;
  if (sub_busy_[sub].exchange(true, std::memory_order_acquire)) {
    group_busy_[group].store(false, std::memory_order_release);
    return false;
  }
  return true;
}

void GridLocks::release(std::uint32_t group, std::uint32_t sub) noexcept {
  sub_busy_[sub].store(false, std::memory_order_release);
  group_busy_[group].store(false, std::memory_order_release);
}

void diagonal_sweep(std::uint32_t groups, GridLocks& locks, const std::function<void(std::uint32_t, std::uint32_t)>& cell,
                    const std::function<void(std::uint32_t)>& round_done) {
  const std::uint32_t G = groups;
  for (std::uint32_t round = 0; round < G; ++round) {
    oneapi::tbb::parallel_for(
        oneapi::tbb::blocked_range<std::uint32_t>(0, G, 1),
        [&](const oneapi::tbb::blocked_range<std::uint32_t>& range) {
          for (std::uint32_t g = range.begin(); g != range.end(); ++g) {
            const std::uint32_t sub = (g + round) % G;
            if (!locks.try_acquire(g, sub))
              throw std::logic_error("cell (" + std::to_string(g) + "," + std::to_string(sub) +
                                     ") already owned: two threads on one row");
            try {
              cell(g, sub);
            } catch (...) {
              locks.release(g, sub);
              throw;
            }
            locks.release(g, sub);
          }
        },
        oneapi::tbb::simple_partitioner());
    if (round_done) round_done(round);
  }
}

void dynamic_sweep(std::uint32_t groups, std::uint32_t slices, int threads, std::uint32_t max_stay,
                   const std::function<void(std::uint32_t, std::uint32_t, std::uint32_t)>& cell) {
  const std::uint32_t G = groups;
  const std::size_t cells = static_cast<std::size_t>(G) * G;
  std::mutex mutex;
  std::condition_variable freed;
  std::vector<std::uint32_t> slices_done(cells, 0);
  std::vector<bool> group_busy(G, false), sub_busy(G, false);
  std::uint64_t unclaimed = std::uint64_t{cells} * slices;
  // Cells by slices done, and the fewest any unfinished cell has: a free cell there in the
  // thread's own sub-range ranks first, so finding one ends the search without the scan of all
  // G² cells (at G = 50, 98M ratings, the scan under the lock was a seventh of training).
  std::vector<std::uint64_t> at_level(std::size_t{slices} + 1, 0);
  at_level[0] = cells;
  std::uint32_t fewest = 0;
  std::exception_ptr failure;
  const int workers = std::max(1, std::min<int>(threads, static_cast<int>(G)));
  oneapi::tbb::parallel_for(0, workers, [&](int who) {
    std::unique_lock lock(mutex);
    std::uint32_t last_sub = static_cast<std::uint32_t>(who) % G;
    std::uint32_t stayed = 0;  // cells taken in a row on last_sub
    for (std::size_t turn = 0;; ++turn) {
      if (failure) return;
      const auto is_free = [&](std::size_t c) { return slices_done[c] < slices && !group_busy[c / G] && !sub_busy[c % G]; };
      // Of the least-done free cells, one in the sub-range the thread just worked on if there
      // is one (its block rows are still in the core's cache) until it has stayed there
      // max_stay cells, then one in another. The scans start where the thread and its turn
      // say, so that other ties spread over the grid.
      const bool stay = stayed < max_stay;
      std::size_t pick = cells;
      if (stay && !sub_busy[last_sub])
        for (std::size_t k = 0; k < G && pick == cells; ++k) {
          const std::size_t c = (k + static_cast<std::size_t>(who) + turn) % G * G + last_sub;
          if (is_free(c) && slices_done[c] == fewest) pick = c;
        }
      const auto rank = [&](std::size_t c) { return std::pair(slices_done[c], (c % G != last_sub) == stay); };
      if (pick == cells)
        for (std::size_t k = 0; k < cells; ++k) {
          const std::size_t c = (k + static_cast<std::size_t>(who) * G + turn * (G + 1)) % cells;
          if (is_free(c) && (pick == cells || rank(c) < rank(pick))) pick = c;
        }
      if (pick == cells) {
        if (unclaimed == 0) return;
        freed.wait(lock);
        continue;
      }
      const auto g = static_cast<std::uint32_t>(pick / G);
      const auto sub = static_cast<std::uint32_t>(pick % G);
      group_busy[g] = sub_busy[sub] = true;
      const std::uint32_t slice = slices_done[pick]++;
      --at_level[slice];
      ++at_level[slice + 1];
      while (fewest < slices && at_level[fewest] == 0) ++fewest;
      stayed = sub == last_sub ? stayed + 1 : 1;
      last_sub = sub;
      --unclaimed;
      lock.unlock();
      std::exception_ptr thrown;
      try {
        cell(g, sub, slice);
      } catch (...) {
        thrown = std::current_exception();
      }
      lock.lock();
      group_busy[g] = sub_busy[sub] = false;
      if (thrown && !failure) failure = thrown;
      freed.notify_all();
    }
  });
  if (failure) std::rethrow_exception(failure);
}

std::vector<std::uint32_t> balanced_cuts(const std::vector<std::uint64_t>& counts, std::uint32_t parts) {
  std::uint64_t total = 0;
  for (auto c : counts) total += c;
  std::vector<std::uint32_t> cuts{0};
  std::uint64_t seen = 0;
  std::uint32_t i = 0;
  const auto n = static_cast<std::uint32_t>(counts.size());
  for (std::uint32_t p = 1; p < parts; ++p) {
    const std::uint64_t target = total * p / parts;
    while (i < n && seen + counts[i] / 2 < target) seen += counts[i++];
    cuts.push_back(std::max(cuts.back(), i));
  }
  cuts.push_back(n);
  return cuts;
}

void cap_spans(std::vector<std::uint32_t>& cuts, std::uint32_t max_span) {
  const std::size_t parts = cuts.size() - 1;
  if (cuts.back() > static_cast<std::uint64_t>(parts) * max_span)
    throw std::invalid_argument("cap_spans: " + std::to_string(cuts.back()) + " rows do not fit " + std::to_string(parts) +
                                " ranges of " + std::to_string(max_span));
  // Forward, each range is cut short; backward, the last ones are widened from their end. A cut
  // only moves where a range is too wide, and each pass keeps the cuts in order.
  for (std::size_t p = 1; p < parts; ++p) cuts[p] = static_cast<std::uint32_t>(std::min<std::uint64_t>(cuts[p], std::uint64_t{cuts[p - 1]} + max_span));
  for (std::size_t p = parts - 1; p >= 1; --p)
    cuts[p] = static_cast<std::uint32_t>(std::max<std::int64_t>(cuts[p], std::int64_t{cuts[p + 1]} - max_span));
}

std::uint32_t choose_groups(int threads, std::uint64_t max_block_rows, std::uint64_t row_bytes) {
  constexpr std::uint64_t kL2Budget = 384 * 1024;  // of a 512 KiB–1 MiB L2: leave room for the streamed rows
  const std::uint64_t for_cache = (max_block_rows * row_bytes + kL2Budget - 1) / kL2Budget;
  const std::uint64_t for_balance = threads > 1 ? 2 * static_cast<std::uint64_t>(threads) : 1;
  return static_cast<std::uint32_t>(std::clamp<std::uint64_t>(std::max(for_cache, for_balance), 1, 64));
}

}  // namespace gyre::rotation
