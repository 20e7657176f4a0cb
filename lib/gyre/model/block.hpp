// gyre/model/block.hpp — a parameter block (BlockId, dense rows of floats or any 4-byte-word type, or rows
// packed by the app; its version clock) and the move-only handle that makes one worker its sole owner.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <stdexcept>
#include <type_traits>
#include <vector>

#include "gyre/base/buffer.hpp"
#include "gyre/base/export.hpp"

namespace gyre::model {

using BlockId = std::uint32_t;

// Rows are padded to a multiple of kRowAlign floats so that every row starts on a 32-byte
// boundary and SIMD loops over a row need no tail handling (padding stays zero).
inline constexpr std::size_t kRowAlign = 8;
inline constexpr std::size_t padded_width(std::size_t cols) {
  return (cols + kRowAlign - 1) / kRowAlign * kRowAlign;
}

// What a block may hold besides floats: any trivially copyable type made of 4-byte words (a
// double, an int32, a struct of floats and counts). The wire keeps every 4-byte word
// little-endian, so a field wider than 4 bytes is exact between hosts of one byte order (every
// host gyre runs on is little-endian).
template <class T>
concept BlockElement = std::is_trivially_copyable_v<T> && sizeof(T) % 4 == 0 && alignof(T) <= 32;

// The stride (in 4-byte slots) of rows of `cols` elements of T: padded so that every row starts
// on a 32-byte boundary, as padded_width does for floats.
template <BlockElement T>
constexpr std::size_t stride_for(std::size_t cols) {
  return padded_width(cols * (sizeof(T) / 4));
}

// A block's rows and row pitch, as the job's plan lays them out: every rank derives the same
// shapes from the same plan, so a block that arrives in another shape comes from a rank with
// other data or flags (or a hostile one) and is refused before any kernel indexes into it.
//
// A packed block (stride 0) holds its rows in an encoding of the app's, 32-bit words of a
// length that varies from visit to visit (LDA's sparse word-topic rows: memory and traffic in
// proportion to the non-zero counts, not rows × K). Its shape bounds the length instead: the
// plan's most for that block, so a peer's frame can still not make this rank allocate more than
// its own plan would. The app checks the words themselves before it uses them.
struct BlockShape {
  std::size_t rows = 0;
  std::size_t stride = 0;
  std::size_t max_bytes = 0;  // packed blocks only
  bool packed() const noexcept { return stride == 0; }
  bool operator==(const BlockShape&) const = default;
};

class Block {
 public:
  Block() = default;
  // `stride` is the row pitch in floats (>= cols, a multiple of kRowAlign); the app decides
  // what the columns mean.
  Block(BlockId id, std::size_t rows, std::size_t stride)
      : id_(id), rows_(rows), stride_(stride), storage_(rows * stride * sizeof(float)) {
    if (stride == 0 || stride % kRowAlign != 0)
      throw std::invalid_argument("block stride must be a positive multiple of 8 (a packed block is made by Block::packed)");
  }
  // Rebuilds a block around a payload that arrived from the transport (or a checkpoint).
  Block(BlockId id, std::uint64_t version, const BlockShape& shape, Buffer storage)
      : id_(id), version_(version), rows_(shape.rows), stride_(shape.stride), max_bytes_(shape.max_bytes) {
    replace_storage(std::move(storage));
  }
  Block(BlockId id, std::uint64_t version, std::size_t rows, std::size_t stride, Buffer storage)
      : Block(id, version, BlockShape{rows, stride, 0}, std::move(storage)) {}
  // A packed block of `rows` rows whose words may take up to `max_bytes`: see BlockShape.
  static Block packed(BlockId id, std::size_t rows, std::size_t max_bytes, Buffer words) {
    return Block(id, 0, BlockShape{rows, 0, max_bytes}, std::move(words));
  }

  BlockId id() const noexcept { return id_; }
  // Number of updates applied to this block since it was created; rotation increments it once
  // per visit, so after E epochs over P workers every block has version E·P.
  std::uint64_t version() const noexcept { return version_; }
  void bump_version() noexcept { ++version_; }

  std::size_t rows() const noexcept { return rows_; }
  std::size_t stride() const noexcept { return stride_; }
  BlockShape shape() const noexcept { return {rows_, stride_, max_bytes_}; }
  bool packed() const noexcept { return stride_ == 0; }
  std::size_t max_bytes() const noexcept { return max_bytes_; }
  float* data() noexcept { return reinterpret_cast<float*>(storage_.data()); }
  const float* data() const noexcept { return reinterpret_cast<const float*>(storage_.data()); }
  float* row(std::size_t r) noexcept { return data() + r * stride_; }
  const float* row(std::size_t r) const noexcept { return data() + r * stride_; }
  std::span<float> values() noexcept { return {data(), rows_ * stride_}; }
  // The same rows as elements of T (see BlockElement): a row of stride s slots holds
  // s·4/sizeof(T) of them. The app decides what a slot holds; the transport moves bytes.
  template <BlockElement T>
  std::span<T> row_as(std::size_t r) noexcept {
    return {reinterpret_cast<T*>(storage_.data() + r * stride_ * 4), stride_ * 4 / sizeof(T)};
  }
  template <BlockElement T>
  std::span<const T> row_as(std::size_t r) const noexcept {
    return {reinterpret_cast<const T*>(storage_.data() + r * stride_ * 4), stride_ * 4 / sizeof(T)};
  }
  template <BlockElement T>
  std::span<T> values_as() noexcept {
    return {reinterpret_cast<T*>(storage_.data()), storage_.size() / sizeof(T)};
  }
  // The same storage as 32-bit integers, for apps whose rows are counts (LDA): the payload is
  // bytes to the transport, so only the app decides what a slot holds.
  std::int32_t* counts() noexcept { return reinterpret_cast<std::int32_t*>(storage_.data()); }
  const std::int32_t* counts() const noexcept { return reinterpret_cast<const std::int32_t*>(storage_.data()); }

  // A packed block's words (a dense block's slots read the same way).
  std::span<std::uint32_t> words() noexcept { return {reinterpret_cast<std::uint32_t*>(storage_.data()), storage_.size() / 4}; }
  std::span<const std::uint32_t> words() const noexcept {
    return {reinterpret_cast<const std::uint32_t*>(storage_.data()), storage_.size() / 4};
  }

  // Gives the payload away (to a message); the block is empty afterwards.
  Buffer release_storage() noexcept { return std::move(storage_); }
  // Puts another payload of the block's shape in place: a dense block's exact size, a packed
  // block's whole words within its bound (a kernel re-encoding the rows it changed).
  void replace_storage(Buffer storage) {
    const bool fits = packed() ? storage.size() % 4 == 0 && storage.size() <= max_bytes_
                               : storage.size() == rows_ * stride_ * sizeof(float) && stride_ % kRowAlign == 0;
    if (!fits) throw std::invalid_argument("block payload does not match its shape");
    storage_ = std::move(storage);
  }

 private:
  BlockId id_ = 0;
  std::uint64_t version_ = 0;
  std::size_t rows_ = 0;
  std::size_t stride_ = 0;
  std::size_t max_bytes_ = 0;
  Buffer storage_;
};

// The move-only handle that makes one worker the sole owner of a block.

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
