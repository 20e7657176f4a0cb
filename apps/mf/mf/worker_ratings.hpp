// apps/mf/mf/worker_ratings.hpp — a worker's ratings laid out for SGD: per block, a grid of user groups × item sub-blocks.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "gyre/data/ratings.hpp"
#include "gyre/rotation/cell_grid.hpp"
#include "mf/item_blocks.hpp"

namespace gyre::mf {

// A rating with both ids made local, as a shard's ratings are sorted into cells: `user` indexes
// the worker's user factor rows, `item` is the item's row in its block. The same type as an
// input rating, so that a shard's ratings become a worker's grid in place, without a second
// copy of the ratings.
using LocalRating = data::Rating;

// A rating as a cell keeps it once sorted: `row` is the item's row within the cell's sub-block
// (at most kMaxSubBlockRows of them), so the rating takes 10 bytes where LocalRating takes 12.
// The ratings are nearly all of a worker's memory at scale (98M of them: 187 MiB less); packed,
// the fields are read unaligned, which costs x86 nothing measurable in the update loops.
#pragma pack(push, 2)
struct CellRating {
  std::uint32_t user;
  std::uint16_t row;
  float value;
};
#pragma pack(pop)
static_assert(sizeof(CellRating) == 10);
inline constexpr std::uint32_t kMaxSubBlockRows = std::uint32_t{1} << 16;

// A cell's ratings and its sub-block's first row in the block: rating r is of block row
// first_row + r.row.
struct Cell {
  std::span<const CellRating> ratings;
  std::uint32_t first_row = 0;
};

// The fewest groups G that cut every block into sub-blocks of at most kMaxSubBlockRows rows.
std::uint32_t min_groups(const ItemBlocks& blocks);

// Maps global user ids to the worker's dense row numbers: users with ratings in the training
// shard or in the test shard (a test-only user keeps its initial row), ascending by id.
struct LocalUsers {
  std::vector<std::uint32_t> global_ids;  // local → global
  std::vector<std::uint32_t> local_of;    // global → local, kNone if not here (MfKernel lets it go once laid out)
  static constexpr std::uint32_t kNone = 0xFFFFFFFFu;
  static LocalUsers of(const data::RatingsSet& train, const data::RatingsSet& test);
};

// The grid of one block on one worker: G user groups (shared by all blocks) × G item
// sub-blocks (row ranges of this block, balanced by ratings, none wider than
// kMaxSubBlockRows). Cell (g, s) holds the ratings of users in group g for items in sub-block
// s, sorted by (user, row, value) so that a user's row stays in L1 across its ratings and the
// sub-block's item rows stay in L2, and the order depends on nothing but the ratings.
class WorkerRatings {
 public:
  // Takes the shard's ratings over and lays them out in place, sorting the cells on `threads`
  // threads, then packs them as CellRatings in the same memory and returns the rest of it to
  // the system. `groups` is G, at least min_groups(blocks); ratings of users not in `users` are
  // rejected (they belong to another shard).
  WorkerRatings(std::vector<data::Rating> shard, const LocalUsers& users, const ItemBlocks& blocks,
                std::uint32_t groups, int threads);

  std::uint32_t groups() const noexcept { return groups_; }
  std::uint32_t blocks() const noexcept { return static_cast<std::uint32_t>(row_cuts_.size()); }
  std::uint64_t size() const noexcept { return cells_.size(); }
  Cell cell(std::uint32_t block, std::uint32_t group, std::uint32_t sub) const;
  std::uint64_t block_size(std::uint32_t b) const {
    const auto [first, last] = cells_.block(b);
    return last - first;
  }
  // Where `cell`'s ratings start in the worker's layout: an index for state kept per rating.
  std::uint64_t position_of(const Cell& cell) const noexcept {
    return static_cast<std::uint64_t>(cell.ratings.data() - entries());
  }
  // Frees the ratings (the grid's shape stays); cells are empty afterwards.
  void clear() noexcept {
    std::vector<data::Rating>().swap(storage_);
    cells_ = rotation::CellIndex(groups_, std::vector<std::uint64_t>(static_cast<std::size_t>(blocks()) * groups_ * groups_ + 1, 0));
  }

 private:
  // Packs the sorted cells' ratings to CellRatings, front to back in the same memory.
  void pack();
  const CellRating* entries() const noexcept { return reinterpret_cast<const CellRating*>(storage_.data()); }

  std::uint32_t groups_;
  std::vector<data::Rating> storage_;  // the shard's ratings' memory, the first size() CellRatings of it in use
  std::vector<std::vector<std::uint32_t>> row_cuts_;  // per block: G+1 row boundaries
  rotation::CellIndex cells_;
};

}  // namespace gyre::mf
