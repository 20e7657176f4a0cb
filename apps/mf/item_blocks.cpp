// apps/mf/item_blocks.cpp — greedy count-balanced item blocking.
#include "mf/item_blocks.hpp"

#include <algorithm>
#include <numeric>
#include <queue>

namespace gyre::mf {

ItemBlocks ItemBlocks::balance(const std::vector<std::uint64_t>& item_counts, std::uint32_t blocks) {
  const auto n = static_cast<std::uint32_t>(item_counts.size());
  std::vector<std::uint32_t> order(n);
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::uint32_t a, std::uint32_t b) { return item_counts[a] > item_counts[b]; });
  using Load = std::pair<std::uint64_t, std::uint32_t>;  // (ratings, block): ties to the lower id
  std::priority_queue<Load, std::vector<Load>, std::greater<>> least;
  for (std::uint32_t b = 0; b < blocks; ++b) least.push({0, b});

  ItemBlocks out;
  out.block_of.resize(n);
  out.row_of.resize(n);
  out.items.resize(blocks);
  for (std::uint32_t item : order) {
    auto [load, b] = least.top();
    least.pop();
    out.block_of[item] = b;
    least.push({load + std::max<std::uint64_t>(item_counts[item], 1), b});
  }
  for (std::uint32_t item = 0; item < n; ++item) {
    auto& rows = out.items[out.block_of[item]];
    out.row_of[item] = static_cast<std::uint32_t>(rows.size());
    rows.push_back(item);
  }
  return out;
}

std::vector<std::uint64_t> count_items(const std::vector<data::RatingsSet>& shards, std::uint32_t items) {
  std::vector<std::uint64_t> counts(items, 0);
  for (const auto& s : shards)
    for (const auto& r : s.ratings) ++counts[r.item];
  return counts;
}

}  // namespace gyre::mf
