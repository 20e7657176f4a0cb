// gyre/base/buffer.hpp — an owning, cache-line aligned byte buffer that moves without copying.
#pragma once

#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <span>

#include "gyre/base/huge_pages.hpp"

namespace gyre {

// Block payloads live in a Buffer so that handing a block to the transport is a pointer move:
// the inproc backend passes it on as is and the tcp backend writes it with scatter/gather.
// Alignment to 64 bytes keeps factor rows on cache lines and aligned for SIMD loads.
class Buffer {
 public:
  static constexpr std::size_t kAlignment = 64;
  // Payloads of kHugeFrom and more are aligned to a 2 MiB page and advised as huge pages
  // (huge_pages.hpp): kernels read their rows at random, and with 4 KB pages a row of an LDA
  // block at K = 1000 is a TLB miss of its own.
  static constexpr std::size_t kHugePage = gyre::kHugePage;
  static constexpr std::size_t kHugeFrom = gyre::kHugeFrom;

  Buffer() = default;
  explicit Buffer(std::size_t size) : size_(size) {
    if (size == 0) return;
    const bool huge = size >= kHugeFrom;
    const std::size_t align = huge ? kHugePage : kAlignment;
    const std::size_t rounded = (size + align - 1) / align * align;
    void* p = std::aligned_alloc(align, rounded);
    if (p == nullptr) throw std::bad_alloc();
    if (huge) advise_huge_pages(p, rounded);
    std::memset(p, 0, rounded);
    data_.reset(static_cast<std::byte*>(p));
  }

  std::byte* data() noexcept { return data_.get(); }
  const std::byte* data() const noexcept { return data_.get(); }
  std::size_t size() const noexcept { return size_; }
  bool empty() const noexcept { return size_ == 0; }
  std::span<std::byte> bytes() noexcept { return {data(), size_}; }
  std::span<const std::byte> bytes() const noexcept { return {data(), size_}; }

 private:
  struct Free {
    void operator()(std::byte* p) const noexcept { std::free(p); }
  };
  std::unique_ptr<std::byte[], Free> data_;
  std::size_t size_ = 0;
};

}  // namespace gyre
