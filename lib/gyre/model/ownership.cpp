// gyre/model/ownership.cpp — owner counting for blocks.
#include "gyre/model/block.hpp"

#include <stdexcept>

namespace gyre::model {

OwnershipRegistry::OwnershipRegistry(std::size_t blocks) : counts_(blocks) {}

void OwnershipRegistry::acquire(BlockId id) noexcept {
  acquisitions_.fetch_add(1, std::memory_order_relaxed);
  if (id >= counts_.size() || counts_[id].fetch_add(1, std::memory_order_acq_rel) != 0)
    violations_.fetch_add(1, std::memory_order_relaxed);
}

void OwnershipRegistry::release(BlockId id) noexcept {
  if (id >= counts_.size() || counts_[id].fetch_sub(1, std::memory_order_acq_rel) != 1)
    violations_.fetch_add(1, std::memory_order_relaxed);
}

OwnedBlock::OwnedBlock(Block block, OwnershipRegistry* registry)
    : block_(std::make_unique<Block>(std::move(block))), registry_(registry) {
  if (registry_ != nullptr) registry_->acquire(block_->id());
}

OwnedBlock::OwnedBlock(OwnedBlock&& other) noexcept
    : block_(std::move(other.block_)), registry_(other.registry_) {}

OwnedBlock& OwnedBlock::operator=(OwnedBlock&& other) noexcept {
  if (this != &other) {
    reset();
    block_ = std::move(other.block_);
    registry_ = other.registry_;
  }
  return *this;
}

Block OwnedBlock::release() {
  if (!block_) throw std::logic_error("release of an empty block handle");
  if (registry_ != nullptr) registry_->release(block_->id());
  Block out = std::move(*block_);
  block_.reset();
  return out;
}

void OwnedBlock::reset() noexcept {
  if (block_ && registry_ != nullptr) registry_->release(block_->id());
  block_.reset();
}

}  // namespace gyre::model
