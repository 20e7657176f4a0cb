// tests/lib/base/crc32c_test.cpp — CRC-32C: the standard check value, incremental use, and the instruction path equal to the tables at every length and alignment.
#include <doctest/doctest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "gyre/base/crc32c.hpp"

TEST_CASE("crc32c: the check value of \"123456789\" and of nothing, on both paths") {
  const std::string check = "123456789";
  CHECK(gyre::crc32c(check.data(), check.size()) == 0xE3069283u);
  CHECK(gyre::crc32c_portable(check.data(), check.size()) == 0xE3069283u);
  CHECK(gyre::crc32c(nullptr, 0) == 0u);
  // 32 zero bytes (RFC 3720's first iSCSI vector).
  const std::vector<unsigned char> zeros(32, 0);
  CHECK(gyre::crc32c(zeros.data(), zeros.size()) == 0x8A9136AAu);
  const std::string path = gyre::crc32c_uses_hardware() ? "the CPU's crc32 instruction" : "tables";
  MESSAGE("crc32c runs by " << path);
}

TEST_CASE("crc32c: every length and alignment equals the table-driven CRC, and pieces chain") {
  std::mt19937_64 random(7);
  std::vector<unsigned char> bytes(4096 + 16);
  for (auto& b : bytes) b = static_cast<unsigned char>(random());
  for (std::size_t offset = 0; offset < 9; ++offset)
    for (std::size_t size = 0; size < 200; ++size) {
      CAPTURE(offset);
      CAPTURE(size);
      REQUIRE(gyre::crc32c(bytes.data() + offset, size, 0x12345678u) ==
              gyre::crc32c_portable(bytes.data() + offset, size, 0x12345678u));
    }
  const std::uint32_t whole = gyre::crc32c(bytes.data(), bytes.size());
  CHECK(whole == gyre::crc32c_portable(bytes.data(), bytes.size()));
  for (const std::size_t cut : {1u, 7u, 8u, 13u, 2048u, 4100u})
    CHECK(gyre::crc32c(bytes.data() + cut, bytes.size() - cut, gyre::crc32c(bytes.data(), cut)) == whole);
}
