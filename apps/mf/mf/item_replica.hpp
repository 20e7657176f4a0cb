// apps/mf/mf/item_replica.hpp — every item block in one place: the shared copy (locking) or a worker's replica (allreduce, no-sync).
#pragma once

#include <span>
#include <vector>

#include "gyre/model/block.hpp"
#include "mf/trainer.hpp"

namespace gyre::mf {

// Blocks by id, 0 … B−1, initialised as the rotation's are (from the seed, per item).
std::vector<model::Block> all_item_blocks(const MfPlan& plan);
std::vector<model::Block> copy_blocks(const std::vector<model::Block>& blocks);

// The floats of the listed blocks, one after the other (the allreduce's buffer), and back.
std::vector<float> gather_values(const std::vector<model::Block>& blocks, std::span<const model::BlockId> ids);
void scatter_values(std::span<const float> values, std::vector<model::Block>& blocks, std::span<const model::BlockId> ids);

}  // namespace gyre::mf
