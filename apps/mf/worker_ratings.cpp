// apps/mf/worker_ratings.cpp — counting sort of a shard into per-block grids.
#include "mf/worker_ratings.hpp"

#include "mf/cell_order.hpp"

#include "gyre/base/page_release.hpp"
#include "gyre/base/thread_arena.hpp"
#include "gyre/rotation/cell_grid.hpp"

#include <oneapi/tbb/parallel_for.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>

namespace gyre::mf {
using rotation::balanced_cuts;

LocalUsers LocalUsers::of(const data::RatingsSet& train, const data::RatingsSet& test) {
  LocalUsers lu;
  const std::uint32_t users = std::max(train.users, test.users);
  lu.local_of.assign(users, kNone);
  for (const auto* set : {&train, &test})
    for (const auto& r : set->ratings) lu.local_of[r.user] = 0;
  for (std::uint32_t u = 0; u < users; ++u)
    if (lu.local_of[u] != kNone) {
      lu.local_of[u] = static_cast<std::uint32_t>(lu.global_ids.size());
      lu.global_ids.push_back(u);
    }
  return lu;
}

std::uint32_t min_groups(const ItemBlocks& blocks) {
  std::size_t rows = 0;
  for (const auto& b : blocks.rows) rows = std::max(rows, b.size());
  return static_cast<std::uint32_t>(std::max<std::size_t>(1, (rows + kMaxSubBlockRows - 1) / kMaxSubBlockRows));
}

WorkerRatings::WorkerRatings(std::vector<data::Rating> shard, const LocalUsers& users, const ItemBlocks& blocks,
                             std::uint32_t groups, int threads)
    : groups_(std::max(1u, groups)), storage_(std::move(shard)) {
  std::span<data::Rating> entries(storage_);
  const std::uint32_t G = groups_;
  const auto B = static_cast<std::uint32_t>(blocks.rows.size());
  const auto U = static_cast<std::uint32_t>(users.global_ids.size());

  // User groups: contiguous local-user ranges balanced by this shard's counts.
  std::vector<std::uint64_t> user_counts(U, 0);
  std::vector<std::vector<std::uint64_t>> row_counts(B);
  for (std::uint32_t b = 0; b < B; ++b) row_counts[b].assign(blocks.rows[b].size(), 0);
  for (const auto& r : entries) {
    const std::uint32_t lu = r.user < users.local_of.size() ? users.local_of[r.user] : LocalUsers::kNone;
    if (lu == LocalUsers::kNone)
      throw std::invalid_argument("rating of user " + std::to_string(r.user) + " in the wrong shard");
    ++user_counts[lu];
    ++row_counts[blocks.block_of[r.item]][blocks.row_of[r.item]];
  }
  const auto user_cut = balanced_cuts(user_counts, G);
  std::vector<std::uint32_t> group_of(U);
  for (std::uint32_t g = 0; g < G; ++g)
    for (std::uint32_t u = user_cut[g]; u < user_cut[g + 1]; ++u) group_of[u] = g;

  row_cuts_.resize(B);
  std::vector<std::vector<std::uint32_t>> sub_of_row(B);
  for (std::uint32_t b = 0; b < B; ++b) {
    row_cuts_[b] = balanced_cuts(row_counts[b], G);
    rotation::cap_spans(row_cuts_[b], kMaxSubBlockRows);
    sub_of_row[b].resize(row_counts[b].size());
    for (std::uint32_t s = 0; s < G; ++s)
      for (std::uint32_t row = row_cuts_[b][s]; row < row_cuts_[b][s + 1]; ++row) sub_of_row[b][row] = s;
  }

  // Into cells in place by the global ids, then each cell's ids made local and sorted.
  const std::size_t cells = static_cast<std::size_t>(B) * G * G;
  cells_ = rotation::CellIndex(G, rotation::permute_by_cell(entries, cells, [&](const data::Rating& r) {
    const std::uint32_t b = blocks.block_of[r.item];
    return rotation::CellIndex::of(b, group_of[users.local_of[r.user]], sub_of_row[b][blocks.row_of[r.item]], G);
  }));
  // Cells are independent: sorted in parallel, in an arena of the caller's thread count.
  ThreadArena arena(threads);
  arena.execute([&] {
    oneapi::tbb::parallel_for(std::size_t{0}, cells, [&](std::size_t c) {
      const auto g = static_cast<std::uint32_t>(c / G % G), s = static_cast<std::uint32_t>(c % G);
      const auto [first, last] = cells_.cell(static_cast<std::uint32_t>(c / (std::size_t{G} * G)), g, s);
      const auto cell = entries.subspan(first, last - first);
      for (LocalRating& r : cell) r = {users.local_of[r.user], blocks.row_of[r.item], r.value};
      sort_cell(cell);
    });
  });
  pack();
}

void WorkerRatings::pack() {
  // Rating i moves from byte 12i to byte 10i: never onto a rating not yet read, so one pass in
  // order packs in place.
  auto* bytes = reinterpret_cast<std::byte*>(storage_.data());
  std::uint64_t i = 0;
  for (std::uint32_t b = 0; b < blocks(); ++b)
    for (std::uint32_t g = 0; g < groups_; ++g)
      for (std::uint32_t s = 0; s < groups_; ++s) {
        const std::uint32_t first_row = row_cuts_[b][s];
        for (const auto last = cells_.cell(b, g, s).second; i < last; ++i) {
          const data::Rating r = storage_[i];
          const CellRating packed{r.user, static_cast<std::uint16_t>(r.item - first_row), r.value};
          std::memcpy(bytes + i * sizeof(CellRating), &packed, sizeof packed);
        }
      }
  const std::uint64_t used = size() * sizeof(CellRating);
  release_pages(bytes + used, storage_.capacity() * sizeof(data::Rating) - used);
}

Cell WorkerRatings::cell(std::uint32_t block, std::uint32_t group, std::uint32_t sub) const {
  const auto [first, last] = cells_.cell(block, group, sub);
  return {{entries() + first, entries() + last}, row_cuts_[block][sub]};
}

}  // namespace gyre::mf
