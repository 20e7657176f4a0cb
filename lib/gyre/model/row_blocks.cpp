// gyre/model/row_blocks.cpp — greedy count-balanced blocking.
#include "gyre/model/row_blocks.hpp"

#include <algorithm>
#include <functional>
#include <numeric>
#include <queue>
#include <utility>

namespace gyre::model {

RowBlocks RowBlocks::balance(const std::vector<std::uint64_t>& counts, std::uint32_t blocks) {
  const auto n = static_cast<std::uint32_t>(counts.size());
  std::vector<std::uint32_t> order(n);
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) { return counts[a] > counts[b]; });
  using Load = std::pair<std::uint64_t, std::uint32_t>;  // (work, block): ties to the lower id
  std::priority_queue<Load, std::vector<Load>, std::greater<>> least;
  for (std::uint32_t b = 0; b < blocks; ++b) least.push({0, b});

  RowBlocks out;
  out.block_of.resize(n);
  out.row_of.resize(n);
  out.rows.resize(blocks);
  for (std::uint32_t id : order) {
    auto [load, b] = least.top();
    least.pop();
    out.block_of[id] = b;
    least.push({load + std::max<std::uint64_t>(counts[id], 1), b});
  }
  for (std::uint32_t id = 0; id < n; ++id) {
    auto& rows = out.rows[out.block_of[id]];
    out.row_of[id] = static_cast<std::uint32_t>(rows.size());
    rows.push_back(id);
  }
  return out;
}

std::vector<BlockShape> RowBlocks::shapes(std::size_t stride) const {
  std::vector<BlockShape> out;
  out.reserve(rows.size());
  for (const auto& r : rows) out.push_back({r.size(), stride});
  return out;
}

}  // namespace gyre::model
