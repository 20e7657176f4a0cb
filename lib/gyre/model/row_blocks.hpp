// gyre/model/row_blocks.hpp — which rotating block (and which row of it) holds each model row, balanced by work.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "gyre/model/block.hpp"

namespace gyre::model {

// Rows (MF items, LDA words) are dealt to B blocks balanced by their work count (ratings,
// tokens): largest first to the least loaded block, ties by id, so the blocks cost about the
// same to update wherever they go. A row with no work still counts as 1, so empty rows spread
// too. Within a block, rows follow id order. Every rank computes the same blocking from the
// same counts.
struct RowBlocks {
  std::vector<std::uint32_t> block_of;           // per row id
  std::vector<std::uint32_t> row_of;             // per row id: its row within its block
  std::vector<std::vector<std::uint32_t>> rows;  // per block: row ids, by row

  static RowBlocks balance(const std::vector<std::uint64_t>& counts, std::uint32_t blocks);
  // Every block's shape, by block id, with rows of `stride` floats.
  std::vector<BlockShape> shapes(std::size_t stride) const;
};

}  // namespace gyre::model
