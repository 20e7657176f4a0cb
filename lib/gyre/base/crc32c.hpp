// gyre/base/crc32c.hpp — CRC-32C (Castagnoli) checksums for shard files and wire frames.
#pragma once

#include <cstddef>
#include <cstdint>

namespace gyre {

// Incremental: crc32c(b, crc32c(a)) == crc32c(a ++ b). By the CPU's crc32 instruction where it
// has one (x86-64 with SSE4.2, checked at run time), else table-driven, slicing by 8.
std::uint32_t crc32c(const void* data, std::size_t size, std::uint32_t crc = 0) noexcept;
// The table-driven one always, and whether crc32c() uses the instruction (for tests and benchmarks).
std::uint32_t crc32c_portable(const void* data, std::size_t size, std::uint32_t crc = 0) noexcept;
bool crc32c_uses_hardware() noexcept;

}  // namespace gyre
