// gyre/base/page_release.hpp — giving the memory of an array's unused end back to the system while the array lives on.
#pragma once

#include <cstddef>
#include <cstdint>

#include <sys/mman.h>
#include <unistd.h>

namespace gyre {

// Data compacted in place (MF's ratings packed from 12 to 10 bytes) leaves the end of its
// allocation unused, and no standard container can shrink without a second copy: the copy
// would be the run's peak. The whole pages inside [data, data + bytes) are dropped from the
// process's memory instead; they read as zeros if touched again, and stay part of the
// allocation, which is freed as usual. The range must be memory of the caller's own (an
// allocation's elements, not the allocator's bookkeeping) that it will not read before writing.
inline void release_pages(void* data, std::size_t bytes) noexcept {
  static const auto page = static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE));
  const auto from = reinterpret_cast<std::uintptr_t>(data);
  const std::uintptr_t begin = (from + page - 1) / page * page;
  const std::uintptr_t end = (from + bytes) / page * page;
  if (end > begin) ::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_DONTNEED);
}

}  // namespace gyre
