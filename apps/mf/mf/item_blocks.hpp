// apps/mf/mf/item_blocks.hpp — which rotating block (and which row of it) holds each item's factors.
#pragma once

#include <cstdint>
#include <vector>

#include "gyre/data/ratings.hpp"
#include "gyre/model/row_blocks.hpp"

namespace gyre::mf {

// Items are blocked by their ratings count (see model::RowBlocks); `rows[b]` lists block b's items.
using ItemBlocks = model::RowBlocks;

// Ratings per item over a set of shards.
std::vector<std::uint64_t> count_items(const std::vector<data::RatingsSet>& shards, std::uint32_t items);

}  // namespace gyre::mf
