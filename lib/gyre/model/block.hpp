// gyre/model/block.hpp — a parameter block: BlockId, dense float rows, and its version clock.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <stdexcept>

#include "gyre/base/buffer.hpp"

namespace gyre::model {

using BlockId = std::uint32_t;

// Rows are padded to a multiple of kRowAlign floats so that every row starts on a 32-byte
// boundary and SIMD loops over a row need no tail handling (padding stays zero).
inline constexpr std::size_t kRowAlign = 8;
inline constexpr std::size_t padded_width(std::size_t cols) {
  return (cols + kRowAlign - 1) / kRowAlign * kRowAlign;
}

// A block's rows and row pitch, as the job's plan lays them out: every rank derives the same
// shapes from the same plan, so a block that arrives in another shape comes from a rank with
// other data or flags (or a hostile one) and is refused before any kernel indexes into it.
struct BlockShape {
  std::size_t rows = 0;
  std::size_t stride = 0;
  bool operator==(const BlockShape&) const = default;
};

class Block {
 public:
  Block() = default;
  // `stride` is the row pitch in floats (>= cols, a multiple of kRowAlign); the app decides
  // what the columns mean.
  Block(BlockId id, std::size_t rows, std::size_t stride)
      : id_(id), rows_(rows), stride_(stride), storage_(rows * stride * sizeof(float)) {
    if (stride % kRowAlign != 0) throw std::invalid_argument("block stride must be a multiple of 8");
  }
  // Rebuilds a block around a payload that arrived from the transport.
  Block(BlockId id, std::uint64_t version, std::size_t rows, std::size_t stride, Buffer storage)
      : id_(id), version_(version), rows_(rows), stride_(stride), storage_(std::move(storage)) {
    if (storage_.size() != rows * stride * sizeof(float) || stride % kRowAlign != 0)
      throw std::invalid_argument("block payload does not match its shape");
  }

  BlockId id() const noexcept { return id_; }
  // Number of updates applied to this block since it was created; rotation increments it once
  // per visit, so after E epochs over P workers every block has version E·P.
  std::uint64_t version() const noexcept { return version_; }
  void bump_version() noexcept { ++version_; }

  std::size_t rows() const noexcept { return rows_; }
  std::size_t stride() const noexcept { return stride_; }
  BlockShape shape() const noexcept { return {rows_, stride_}; }
  float* data() noexcept { return reinterpret_cast<float*>(storage_.data()); }
  const float* data() const noexcept { return reinterpret_cast<const float*>(storage_.data()); }
  float* row(std::size_t r) noexcept { return data() + r * stride_; }
  const float* row(std::size_t r) const noexcept { return data() + r * stride_; }
  std::span<float> values() noexcept { return {data(), rows_ * stride_}; }
  // The same storage as 32-bit integers, for apps whose rows are counts (LDA): the payload is
  // bytes to the transport, so only the app decides what a slot holds.
  std::int32_t* counts() noexcept { return reinterpret_cast<std::int32_t*>(storage_.data()); }
  const std::int32_t* counts() const noexcept { return reinterpret_cast<const std::int32_t*>(storage_.data()); }

  // Gives the payload away (to a message); the block is empty afterwards.
  Buffer release_storage() noexcept { return std::move(storage_); }

 private:
  BlockId id_ = 0;
  std::uint64_t version_ = 0;
  std::size_t rows_ = 0;
  std::size_t stride_ = 0;
  Buffer storage_;
};

}  // namespace gyre::model
