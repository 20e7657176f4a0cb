// apps/mf/mf/item_replica.hpp — every item block in one place: the shared copy (locking) or a worker's replica (allreduce, no-sync).
#pragma once

#include <span>
#include <string>
#include <vector>

#include "gyre/model/block.hpp"
#include "mf/trainer.hpp"

namespace gyre::mf {

// Blocks by id, 0 … B−1, initialised as the rotation's are (from the seed, per item).
std::vector<model::Block> all_item_blocks(const MfPlan& plan);
std::vector<model::Block> copy_blocks(const std::vector<model::Block>& blocks);

// A block's floats as a lock service's guarded value (little-endian), and back. block_of checks
// the value against this plan's shape of block `id`, naming `from`, and throws
// std::runtime_error when it does not fit.
Buffer value_of(model::Block block);
std::vector<Buffer> block_values(std::vector<model::Block> blocks);
model::Block block_of(const MfPlan& plan, model::BlockId id, Buffer value, const std::string& from);

// The floats of the listed blocks, one after the other (the allreduce's buffer), and back.
std::vector<float> gather_values(const std::vector<model::Block>& blocks, std::span<const model::BlockId> ids);
void scatter_values(std::span<const float> values, std::vector<model::Block>& blocks, std::span<const model::BlockId> ids);

}  // namespace gyre::mf
