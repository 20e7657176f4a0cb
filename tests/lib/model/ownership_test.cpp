// tests/lib/model/ownership_test.cpp — block handles are unique and the registry counts owners.
#include <doctest/doctest.h>

#include <thread>
#include <vector>

#include "gyre/model/block.hpp"

using namespace gyre::model;

TEST_CASE("a block's handle moves, never copies, and the registry follows it") {
  OwnershipRegistry reg(4);
  OwnedBlock a(Block(2, 3, 8), &reg);
  CHECK(reg.owners(2) == 1);
  OwnedBlock b = std::move(a);
  CHECK_FALSE(a);
  CHECK(reg.owners(2) == 1);
  Block raw = b.release();
  CHECK(reg.owners(2) == 0);
  CHECK(raw.rows() == 3);
  CHECK(raw.stride() == 8);
  CHECK(reg.violations() == 0);
  static_assert(!std::is_copy_constructible_v<OwnedBlock>);
}

TEST_CASE("a second owner of the same block is a counted violation") {
  OwnershipRegistry reg(2);
  OwnedBlock a(Block(1, 1, 8), &reg);
  OwnedBlock b(Block(1, 1, 8), &reg);  // same id: what a buggy schedule would cause
  CHECK(reg.owners(1) == 2);
  CHECK(reg.violations() == 1);
}

TEST_CASE("block rows are aligned and the payload survives release into a new block") {
  Block b(7, 5, 16);
  for (std::size_t r = 0; r < b.rows(); ++r) {
    CHECK(reinterpret_cast<std::uintptr_t>(b.row(r)) % 32 == 0);
    b.row(r)[3] = static_cast<float>(r);
  }
  b.bump_version();
  Block c(b.id(), b.version(), b.rows(), b.stride(), b.release_storage());
  CHECK(c.row(4)[3] == 4.0f);
  CHECK(c.version() == 1);
  CHECK_THROWS_AS(Block(1, 0, 5, 8, gyre::Buffer(12)), std::invalid_argument);
  CHECK_THROWS_AS(Block(1, 2, 6), std::invalid_argument);
}

TEST_CASE("concurrent handles on distinct blocks never collide") {
  OwnershipRegistry reg(8);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < 2000; ++i) {
        OwnedBlock h(Block(static_cast<BlockId>(t * 2 + i % 2), 1, 8), &reg);
      }
    });
  for (auto& t : threads) t.join();
  CHECK(reg.violations() == 0);
  CHECK(reg.acquisitions() == 8000);
}
