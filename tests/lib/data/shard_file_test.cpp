// tests/lib/data/shard_file_test.cpp — shard files round-trip and refuse corrupted or foreign bytes.
#include <doctest/doctest.h>

#include <cstring>
#include <fstream>

#include "gyre/data/shard_file.hpp"
#include "support/input_errors.hpp"
#include "support/temp_dir.hpp"

using gyre::data::RatingsSet;
using gyre::data::read_ratings_shard;
using gyre::data::write_ratings_shard;
using gyre::test::catch_input_error;
using gyre::test::contains;
using gyre::test::overwrite_bytes;
using gyre::test::TempDir;

namespace {

RatingsSet sample_ratings() {
  RatingsSet s;
  s.users = 10;
  s.items = 20;
  for (std::uint32_t i = 0; i < 100; ++i) s.ratings.push_back({i % 10, (i * 7) % 20, 0.25f * static_cast<float>(i)});
  return s;
}

}  // namespace

TEST_CASE("shard file: round trip keeps records, order and id space") {
  TempDir dir;
  const RatingsSet s = sample_ratings();
  write_ratings_shard(dir / "a.shard", s);
  CHECK(dir.entries() == std::vector<std::string>{"a.shard"});
  CHECK(std::filesystem::file_size(dir / "a.shard") == 40 + 12 * s.ratings.size());
  const RatingsSet back = read_ratings_shard(dir / "a.shard");
  CHECK(back.users == 10);
  CHECK(back.items == 20);
  REQUIRE(back.ratings.size() == s.ratings.size());
  CHECK(std::memcmp(back.ratings.data(), s.ratings.data(), s.ratings.size() * sizeof(gyre::data::Rating)) == 0);
}

TEST_CASE("shard file: an empty shard round-trips") {
  TempDir dir;
  RatingsSet s;
  s.users = 3;
  s.items = 4;
  write_ratings_shard(dir / "e.shard", s);
  const RatingsSet back = read_ratings_shard(dir / "e.shard");
  CHECK(back.ratings.empty());
  CHECK(back.users == 3);
}

TEST_CASE("shard file: a flipped record byte fails the checksum") {
  TempDir dir;
  write_ratings_shard(dir / "a.shard", sample_ratings());
  const unsigned char junk = 0xAB;
  overwrite_bytes(dir / "a.shard", 40 + 12 * 50 + 9, &junk, 1);
  const auto e = catch_input_error([&] { read_ratings_shard(dir / "a.shard"); });
  INFO(e.message);
  REQUIRE(e.thrown);
  CHECK(e.file == dir / "a.shard");
  CHECK(contains(e.message, "expected records checksum 0x"));
}

TEST_CASE("shard file: bad magic, version, kind and truncation are reported") {
  TempDir dir;
  const auto path = dir / "a.shard";
  const auto error = [&] { return catch_input_error([&] { read_ratings_shard(path); }).message; };

  write_ratings_shard(path, sample_ratings());
  overwrite_bytes(path, 0, "NOTASHRD", 8);
  CHECK(contains(error(), "expected shard magic \"GYRESHRD\", found 'NOTASHRD'"));

  write_ratings_shard(path, sample_ratings());
  const std::uint32_t version = 7, kind = 2;
  overwrite_bytes(path, 8, &version, 4);
  CHECK(contains(error(), "expected shard format version 1, found '7'"));

  write_ratings_shard(path, sample_ratings());
  overwrite_bytes(path, 12, &kind, 4);
  CHECK(contains(error(), "expected shard kind 1 (ratings), found '2'"));

  write_ratings_shard(path, sample_ratings());
  std::filesystem::resize_file(path, 40 + 12 * 99);
  CHECK(contains(error(), "expected 1240 bytes for 100 records, found '1228 bytes'"));

  const std::uint64_t huge = std::uint64_t{1} << 60;  // must not be allocated
  overwrite_bytes(path, 16, &huge, 8);
  CHECK(contains(error(), "records, found '1228 bytes'"));

  std::filesystem::resize_file(path, 10);
  CHECK(contains(error(), "expected a shard header of 40 bytes"));
}

TEST_CASE("shard file: missing file") {
  TempDir dir;
  const auto e = catch_input_error([&] { read_ratings_shard(dir / "none.shard"); });
  REQUIRE(e.thrown);
  CHECK(e.message == (dir / "none.shard").string() + ": expected a readable shard file, found 'No such file or directory'");
}
