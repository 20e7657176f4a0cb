// gyre/base/crc32c.hpp — CRC-32C (Castagnoli) checksums for shard files and wire frames.
#pragma once

#include <cstddef>
#include <cstdint>

namespace gyre {

// Incremental: crc32c(b, crc32c(a)) == crc32c(a ++ b). Table-driven, slicing by 8.
std::uint32_t crc32c(const void* data, std::size_t size, std::uint32_t crc = 0) noexcept;

}  // namespace gyre
