// gyre/model/ownership.hpp — the move-only handle that makes one worker the sole owner of a block.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "gyre/base/export.hpp"
#include "gyre/model/block.hpp"

namespace gyre::model {

// Counts live owners per block id. A worker engine acquires on receipt and releases on send,
// so a count above one means two workers held the block at the same moment: the invariant
// rotation must keep. Debug builds of the engine always use one; release builds when asked
// (the ownership tests pass one in and read the counters).
class GYRE_API OwnershipRegistry {
 public:
  explicit OwnershipRegistry(std::size_t blocks);

  void acquire(BlockId id) noexcept;
  void release(BlockId id) noexcept;

  std::uint64_t acquisitions() const noexcept { return acquisitions_.load(); }
  // Acquisitions that found the block already owned, and releases of unowned blocks.
  std::uint64_t violations() const noexcept { return violations_.load(); }
  int owners(BlockId id) const noexcept { return counts_[id].load(); }
  std::size_t blocks() const noexcept { return counts_.size(); }

 private:
  std::vector<std::atomic<int>> counts_;
  std::atomic<std::uint64_t> acquisitions_{0};
  std::atomic<std::uint64_t> violations_{0};
};

// Exclusive ownership of one block. Copying is impossible, so within a process the block has
// exactly one handle; the registry extends the check across the transport (release on send,
// acquire on receipt) and across processes' views in tests.
class GYRE_API OwnedBlock {
 public:
  OwnedBlock() = default;
  OwnedBlock(Block block, OwnershipRegistry* registry);
  OwnedBlock(OwnedBlock&& other) noexcept;
  OwnedBlock& operator=(OwnedBlock&& other) noexcept;
  OwnedBlock(const OwnedBlock&) = delete;
  OwnedBlock& operator=(const OwnedBlock&) = delete;
  ~OwnedBlock() { reset(); }

  explicit operator bool() const noexcept { return block_ != nullptr; }
  Block& operator*() noexcept { return *block_; }
  Block* operator->() noexcept { return block_.get(); }
  const Block* operator->() const noexcept { return block_.get(); }
  BlockId id() const noexcept { return block_->id(); }

  // Ends ownership and hands the block out (to be serialised and sent).
  Block release();

 private:
  void reset() noexcept;

  std::unique_ptr<Block> block_;
  OwnershipRegistry* registry_ = nullptr;
};

}  // namespace gyre::model
