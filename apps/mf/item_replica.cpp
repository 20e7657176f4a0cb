// apps/mf/item_replica.cpp — building, copying and flattening whole sets of item blocks.
#include "mf/item_replica.hpp"

#include <algorithm>
#include <cstring>

namespace gyre::mf {

std::vector<model::Block> all_item_blocks(const MfPlan& plan) {
  std::vector<model::Block> all(static_cast<std::size_t>(plan.schedule->blocks()));
  for (int w = 0; w < plan.config.workers; ++w)
    for (auto& b : initial_blocks(plan, w)) {
      const auto id = b.id();
      all[id] = std::move(b);
    }
  return all;
}

std::vector<model::Block> copy_blocks(const std::vector<model::Block>& blocks) {
  std::vector<model::Block> out;
  for (const auto& b : blocks) {
    model::Block c(b.id(), b.rows(), b.stride());
    std::copy_n(b.data(), b.rows() * b.stride(), c.data());
    out.push_back(std::move(c));
  }
  return out;
}

std::vector<float> gather_values(const std::vector<model::Block>& blocks, std::span<const model::BlockId> ids) {
  std::vector<float> out;
  for (auto id : ids) {
    const auto& b = blocks[id];
    out.insert(out.end(), b.data(), b.data() + b.rows() * b.stride());
  }
  return out;
}

void scatter_values(std::span<const float> values, std::vector<model::Block>& blocks, std::span<const model::BlockId> ids) {
  std::size_t at = 0;
  for (auto id : ids) {
    auto& b = blocks[id];
    const auto n = b.rows() * b.stride();
    std::copy_n(values.data() + at, n, b.data());
    at += n;
  }
}

}  // namespace gyre::mf
