// apps/mf/mf/worker_ratings.hpp — a worker's ratings laid out for SGD: per block, a grid of user groups × item sub-blocks.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "gyre/data/ratings.hpp"
#include "gyre/rotation/cell_grid.hpp"
#include "mf/item_blocks.hpp"

namespace gyre::mf {

// A rating with both ids made local: `user` indexes the worker's user factor rows, `item` is
// the item's row in its block. The same type as an input rating, so that a shard's ratings
// become a worker's grid in place, without a second copy of the ratings.
using LocalRating = data::Rating;

// Maps global user ids to the worker's dense row numbers: users with ratings in the training
// shard or in the test shard (a test-only user keeps its initial row), ascending by id.
struct LocalUsers {
  std::vector<std::uint32_t> global_ids;  // local → global
  std::vector<std::uint32_t> local_of;    // global → local, kNone if not here (MfKernel lets it go once laid out)
  static constexpr std::uint32_t kNone = 0xFFFFFFFFu;
  static LocalUsers of(const data::RatingsSet& train, const data::RatingsSet& test);
};

// The grid of one block on one worker: G user groups (shared by all blocks) × G item
// sub-blocks (row ranges of this block). Cell (g, s) holds the ratings of users in group g for
// items in sub-block s, sorted by (user, row, value) so that a user's row stays in L1 across
// its ratings and the sub-block's item rows stay in L2, and the order depends on nothing but
// the ratings.
class WorkerRatings {
 public:
  // Takes the shard's ratings over and lays them out in place, sorting the cells on `threads`
  // threads. `groups` is G; ratings of users not in `users` are rejected (they belong to
  // another shard).
  WorkerRatings(std::vector<data::Rating> shard, const LocalUsers& users, const ItemBlocks& blocks,
                std::uint32_t groups, int threads);

  std::uint32_t groups() const noexcept { return groups_; }
  std::uint32_t blocks() const noexcept { return static_cast<std::uint32_t>(row_cuts_.size()); }
  std::uint64_t size() const noexcept { return entries_.size(); }
  std::span<const LocalRating> cell(std::uint32_t block, std::uint32_t group, std::uint32_t sub) const;
  std::span<const LocalRating> block(std::uint32_t b) const;
  std::uint64_t block_size(std::uint32_t b) const { return block(b).size(); }
  // Where `cell`'s ratings start in the worker's layout: an index for state kept per rating.
  std::uint64_t position_of(std::span<const LocalRating> cell) const noexcept {
    return static_cast<std::uint64_t>(cell.data() - entries_.data());
  }
  // Frees the ratings (the grid's shape stays); cells are empty afterwards.
  void clear() noexcept {
    std::vector<LocalRating>().swap(entries_);
    cells_ = rotation::CellIndex(groups_, std::vector<std::uint64_t>(static_cast<std::size_t>(blocks()) * groups_ * groups_ + 1, 0));
  }

 private:
  std::uint32_t groups_;
  std::vector<LocalRating> entries_;
  std::vector<std::vector<std::uint32_t>> row_cuts_;  // per block: G+1 row boundaries
  rotation::CellIndex cells_;
};

}  // namespace gyre::mf
