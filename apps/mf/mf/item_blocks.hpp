// apps/mf/mf/item_blocks.hpp — which rotating block (and which row of it) holds each item's factors.
#pragma once

#include "gyre/model/row_blocks.hpp"

namespace gyre::mf {

// Items are blocked by their ratings count (data::RatingsStats::item_ratings; see model::RowBlocks); `rows[b]` lists block b's items.
using ItemBlocks = model::RowBlocks;

}  // namespace gyre::mf
