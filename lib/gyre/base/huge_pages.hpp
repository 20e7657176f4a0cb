// gyre/base/huge_pages.hpp — asking the kernel to back a large array with transparent huge pages before it is first written.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include <sys/mman.h>

namespace gyre {

// On a virtual machine a page fault costs ~2 µs: zero-filling 60 MB of new 4 KB pages took
// 37 ms on the 2-core VM, the same memory in 2 MB pages 6.7 ms. Transparent huge pages are
// "madvise" on Debian (only memory that asks gets them), so large arrays that are written in
// full soon after they are made (a matrix's column copy, a block of factors) ask, before their
// first write. Advice only: the kernel may give small pages anyway.
inline constexpr std::size_t kHugePage = std::size_t{2} << 20;
inline constexpr std::size_t kHugeFrom = std::size_t{8} << 20;

// Advises the whole 2 MB pages inside [data, data + bytes) (a range that is not 2 MB aligned
// keeps small pages at its ends). Ranges under kHugeFrom are left alone.
inline void advise_huge_pages(void* data, std::size_t bytes) noexcept {
  if (bytes < kHugeFrom) return;
  const auto from = reinterpret_cast<std::uintptr_t>(data);
  const std::uintptr_t begin = (from + kHugePage - 1) / kHugePage * kHugePage;
  const std::uintptr_t end = (from + bytes) / kHugePage * kHugePage;
  if (end > begin) ::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
}

// v.resize(n) for an empty vector, its storage advised as huge pages before the elements are
// first written (value-initialised, as resize does). A vector that holds elements is resized
// as it is.
template <class T>
void resize_huge(std::vector<T>& v, std::size_t n) {
  if (v.empty() && v.capacity() < n) {
    v.reserve(n);
    advise_huge_pages(v.data(), n * sizeof(T));
  }
  v.resize(n);
}

}  // namespace gyre
