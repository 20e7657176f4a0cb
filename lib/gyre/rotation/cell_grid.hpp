// gyre/rotation/cell_grid.hpp — a worker's G×G grid of (local row group × block sub-range) cells, and sweeping it on T threads.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <utility>
#include <vector>

namespace gyre::rotation {

// Inside a worker, the rows that stay (MF users, LDA documents) are cut into G groups and a
// visiting block's rows into G sub-ranges; cell (g, s) holds the work that touches both. Two
// cells that share neither a group nor a sub-range touch disjoint state, so they may run at
// once: that is the exclusive ownership of rows inside a worker.

// Ownership of the grid's groups and sub-ranges. The diagonal sweep never contends by
// construction, so an acquisition that finds its group or sub-range taken is a bug: the sweep
// then fails rather than race.
class GridLocks {
 public:
  explicit GridLocks(std::uint32_t groups);
  bool try_acquire(std::uint32_t group, std::uint32_t sub) noexcept;
  void release(std::uint32_t group, std::uint32_t sub) noexcept;

 private:
  std::unique_ptr<std::atomic<bool>[]> group_busy_;
  std::unique_ptr<std::atomic<bool>[]> sub_busy_;
};

// Runs cell(g, s) for every cell, in G rounds: round r pairs group g with sub-range (g + r) mod
// G, and the G cells of a round run in parallel on the calling arena's threads. After each
// round, round_done(r) runs on the calling thread (apps fold per-cell results there in cell
// order, which keeps results independent of the thread count's timing).
void diagonal_sweep(std::uint32_t groups, GridLocks& locks, const std::function<void(std::uint32_t, std::uint32_t)>& cell,
                    const std::function<void(std::uint32_t)>& round_done = {});

// Runs cell(g, s, slice) for every cell and every slice in [0, slices) of it, a cell's slices
// in order, on at most `threads` threads of the calling arena, with no barrier anywhere: a free
// thread takes, of the cells whose group and sub-range are both free, one with the fewest
// slices done (LIBMF's least-updated block). Cells so stay close to one another in slices, as
// the diagonal rounds keep them, but no thread waits for a round's slowest cell: a thread that
// a shared core stalls holds up only the cells it owns. Two running calls never share a group
// or a sub-range; which thread runs what, and in what order, depends on timing. If a call
// throws, no new cell starts and the first exception is rethrown once the running ones end.
// Among the least-done cells a thread prefers one in the sub-range it just ran (whose rows are
// still in its cache) for up to `max_stay` cells in a row, then one in another sub-range: a
// long stay gives the sub-range's rows many updates in a row while the rest of the grid waits,
// which SGD converges slower from (tools/bench/mf-libmf.md, 2026-12-06).
void dynamic_sweep(std::uint32_t groups, std::uint32_t slices, int threads, std::uint32_t max_stay,
                   const std::function<void(std::uint32_t, std::uint32_t, std::uint32_t)>& cell);

// Cuts [0, counts.size()) into `parts` contiguous ranges of about equal total count; returns
// the parts+1 boundaries.
std::vector<std::uint32_t> balanced_cuts(const std::vector<std::uint64_t>& counts, std::uint32_t parts);

// Moves `cuts` (boundaries over [0, cuts.back())) as little as it takes for no range to span
// more than `max_span`, leaving them as they are where none does. Needs cuts.back() ≤
// (cuts.size() − 1)·max_span; throws std::invalid_argument otherwise.
void cap_spans(std::vector<std::uint32_t>& cuts, std::uint32_t max_span);

// G for a worker: enough sub-ranges that a sub-range's block rows fit in L2 next to the rows
// being streamed, and at least 2·T cells per round so threads balance.
std::uint32_t choose_groups(int threads, std::uint64_t max_block_rows, std::uint64_t row_bytes);

// Where each of a worker's B·G·G cells starts in one array of entries: cell (b, g, s) has
// index (b·G + g)·G + s, so the cells of a block are contiguous.
class CellIndex {
 public:
  CellIndex() = default;
  CellIndex(std::uint32_t groups, std::vector<std::uint64_t> begin) : groups_(groups), begin_(std::move(begin)) {}

  static std::size_t of(std::uint32_t block, std::uint32_t group, std::uint32_t sub, std::uint32_t groups) noexcept {
    return (static_cast<std::size_t>(block) * groups + group) * groups + sub;
  }
  // [first, last) entry offsets of one cell, or of all cells of a block.
  std::pair<std::uint64_t, std::uint64_t> cell(std::uint32_t block, std::uint32_t group, std::uint32_t sub) const noexcept {
    const std::size_t c = of(block, group, sub, groups_);
    return {begin_[c], begin_[c + 1]};
  }
  std::pair<std::uint64_t, std::uint64_t> block(std::uint32_t b) const noexcept {
    return {begin_[of(b, 0, 0, groups_)], begin_[of(b + 1, 0, 0, groups_)]};
  }
  // Entries in all cells.
  std::uint64_t size() const noexcept { return begin_.back(); }

 private:
  std::uint32_t groups_ = 1;
  std::vector<std::uint64_t> begin_{0};
};

// Counting sort into `cells` buckets of the items that for_each(emit) produces by calling
// emit(cell, item) once per item, in the same order each time (it is called twice: to count,
// then to place). Returns the cells+1 offsets; `out` holds the items bucket by bucket, in
// production order within a bucket. Producing the items twice beats holding them twice.
template <class Item, class ForEach>
std::vector<std::uint64_t> bucket_by_cell(ForEach for_each, std::size_t cells, std::vector<Item>& out) {
  std::vector<std::uint64_t> begin(cells + 1, 0);
  for_each([&](std::size_t cell, const Item&) { ++begin[cell + 1]; });
  for (std::size_t c = 0; c < cells; ++c) begin[c + 1] += begin[c];
  std::vector<std::uint64_t> fill(begin.begin(), begin.end() - 1);
  out.resize(begin[cells]);
  for_each([&](std::size_t cell, const Item& item) { out[fill[cell]++] = item; });
  return begin;
}

namespace detail {
template <class Cell, class Item, class CellOf>
std::vector<std::uint64_t> permute_by_cell_ids(std::span<Item> items, std::size_t cells, CellOf cell_of) {
  std::vector<Cell> home(items.size());
  std::vector<std::uint64_t> begin(cells + 1, 0);
  for (std::size_t i = 0; i < items.size(); ++i) {
    home[i] = static_cast<Cell>(cell_of(items[i]));
    ++begin[std::size_t{home[i]} + 1];
  }
  for (std::size_t c = 0; c < cells; ++c) begin[c + 1] += begin[c];
  std::vector<std::uint64_t> next(begin.begin(), begin.end() - 1);
  for (std::size_t c = 0; c < cells; ++c)
    while (next[c] < begin[c + 1]) {
      const std::size_t at = next[c], h = home[at];
      if (h == c) {
        ++next[c];
        continue;
      }
      const std::size_t to = next[h]++;
      std::swap(items[at], items[to]);
      std::swap(home[at], home[to]);
    }
  return begin;
}
}  // namespace detail

// The same in place: permutes `items` so that bucket c holds the items with cell_of(item) == c,
// by swapping each misplaced item into the next free slot of its bucket (no second array of
// items, so a shard's ratings are laid out without doubling their memory). Each item's cell is
// computed once, into an array of 2 bytes an item (4 beyond 65,536 cells) that moves with the
// items: computing it at every move was most of the layout's time (98M ratings: a one-epoch
// gyre-mf run went from 53.6 s to 21.8 s). Returns the cells+1 offsets. Not stable: callers
// that need an order sort inside each bucket.
template <class Item, class CellOf>
std::vector<std::uint64_t> permute_by_cell(std::span<Item> items, std::size_t cells, CellOf cell_of) {
  if (cells <= std::size_t{1} << 16) return detail::permute_by_cell_ids<std::uint16_t>(items, cells, cell_of);
  return detail::permute_by_cell_ids<std::uint32_t>(items, cells, cell_of);
}

}  // namespace gyre::rotation
