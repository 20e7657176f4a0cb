// apps/mf/item_blocks.cpp — ratings per item, the work count MF blocks items by.
#include "mf/item_blocks.hpp"

namespace gyre::mf {

std::vector<std::uint64_t> count_items(const std::vector<data::RatingsSet>& shards, std::uint32_t items) {
  std::vector<std::uint64_t> counts(items, 0);
  for (const auto& s : shards)
    for (const auto& r : s.ratings) ++counts[r.item];
  return counts;
}

}  // namespace gyre::mf
