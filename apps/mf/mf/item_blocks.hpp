// apps/mf/mf/item_blocks.hpp — which rotating block (and which row of it) holds each item's factors.
#pragma once

#include <cstdint>
#include <vector>

#include "gyre/data/ratings.hpp"

namespace gyre::mf {

// Items are dealt to B blocks balanced by ratings count (largest first to the least loaded
// block, ties by id), so the blocks cost about the same to update wherever they go. Within a
// block, rows follow item id order.
struct ItemBlocks {
  std::vector<std::uint32_t> block_of;          // per item
  std::vector<std::uint32_t> row_of;            // per item, row within its block
  std::vector<std::vector<std::uint32_t>> items;  // per block: item ids by row

  static ItemBlocks balance(const std::vector<std::uint64_t>& item_counts, std::uint32_t blocks);
};

// Ratings per item over a set of shards.
std::vector<std::uint64_t> count_items(const std::vector<data::RatingsSet>& shards, std::uint32_t items);

}  // namespace gyre::mf
