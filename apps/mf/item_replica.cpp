// apps/mf/item_replica.cpp — building, copying and flattening whole sets of item blocks.
#include "mf/item_replica.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "gyre/wire/body.hpp"

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

Buffer value_of(model::Block block) {
  wire::little_in_place(block.values());
  return block.release_storage();
}

std::vector<Buffer> block_values(std::vector<model::Block> blocks) {
  std::vector<Buffer> out;
  for (auto& b : blocks) out.push_back(value_of(std::move(b)));
  return out;
}

model::Block block_of(const MfPlan& plan, model::BlockId id, Buffer value, const std::string& from) {
  const auto rows = id < plan.blocks.rows.size() ? plan.blocks.rows[id].size() : 0;
  const auto stride = plan.layout.stride;
  if (id >= plan.blocks.rows.size() || value.size() != rows * stride * sizeof(float))
    throw std::runtime_error(from + " sent item block " + std::to_string(id) + " as " + std::to_string(value.size()) +
                             " bytes; the plan here has " + std::to_string(plan.blocks.rows.size()) +
                             " blocks and gives it " + std::to_string(rows * stride * sizeof(float)));
  model::Block block(id, 0, rows, stride, std::move(value));
  wire::little_in_place(block.values());
  return block;
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
