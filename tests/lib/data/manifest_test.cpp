// tests/lib/data/manifest_test.cpp — partition directories load back only when shards match the manifest.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "gyre/data/manifest.hpp"
#include "gyre/data/partition.hpp"
#include "gyre/data/planted_ratings.hpp"
#include "gyre/data/ratings_partition.hpp"
#include "gyre/data/shard_file.hpp"
#include "support/input_errors.hpp"
#include "support/partition_manifest.hpp"
#include "support/temp_dir.hpp"

using namespace gyre::data;
using gyre::test::catch_input_error;
using gyre::test::contains;
using gyre::test::edit_manifest;
using gyre::test::read_text;
using gyre::test::TempDir;
using gyre::test::write_text;

namespace {

std::vector<RatingsSet> sample_shards(std::uint32_t parts) {
  PlantedRatingsOptions o;
  o.users = 60;
  o.items = 40;
  o.ratings = 900;
  const RatingsSet train = generate_planted_ratings(o).train;
  return split_by_user(train, partition_users(train, parts));
}

gyre::test::CaughtInputError load_error(const TempDir& dir) {
  return catch_input_error([&] { read_ratings_partition(dir.path()); });
}

}  // namespace

TEST_CASE("manifest: write then read gives back every shard") {
  TempDir dir;
  const auto shards = sample_shards(3);
  write_ratings_partition(dir.path(), shards);
  CHECK(dir.entries() == std::vector<std::string>{"manifest.json", "part-00000.shard", "part-00001.shard",
                                                  "part-00002.shard"});
  const Manifest m = read_manifest(dir.path());
  CHECK(m.kind == "ratings");
  CHECK(m.users == 60);
  CHECK(m.items == 40);
  CHECK(m.records == 810);
  CHECK(m.balance == doctest::Approx(balance(shards)));
  REQUIRE(m.shards.size() == 3);
  CHECK(m.shards[1].file == "part-00001.shard");
  CHECK(m.shards[1].records == shards[1].ratings.size());

  const auto back = read_ratings_partition(dir.path());
  REQUIRE(back.size() == 3);
  for (std::size_t p = 0; p < 3; ++p) {
    REQUIRE(back[p].ratings.size() == shards[p].ratings.size());
    for (std::size_t i = 0; i < back[p].ratings.size(); ++i) {
      CHECK(back[p].ratings[i].user == shards[p].ratings[i].user);
      CHECK(back[p].ratings[i].value == shards[p].ratings[i].value);
    }
  }
}

TEST_CASE("manifest: edited record count names the shard file") {
  TempDir dir;
  write_ratings_partition(dir.path(), sample_shards(2));
  edit_manifest(dir, [](nlohmann::json& d) {
    d["shards"][1]["records"] = d["shards"][1]["records"].get<std::uint64_t>() + 1;
    d["records"] = d["records"].get<std::uint64_t>() + 1;
  });
  const auto e = load_error(dir);
  INFO(e.message);
  REQUIRE(e.thrown);
  CHECK(e.file == dir / "part-00001.shard");
  CHECK(contains(e.message, "records as listed in manifest.json"));
}

TEST_CASE("manifest: total that disagrees with the shard entries") {
  TempDir dir;
  write_ratings_partition(dir.path(), sample_shards(2));
  edit_manifest(dir, [](nlohmann::json& d) { d["records"] = 5; });
  const auto e = load_error(dir);
  REQUIRE(e.thrown);
  CHECK(e.file == dir / "manifest.json");
  CHECK(contains(e.message, "\"records\" equal to the sum over shards"));
}

TEST_CASE("manifest: deleted shard names the missing file") {
  TempDir dir;
  write_ratings_partition(dir.path(), sample_shards(3));
  std::filesystem::remove(dir / "part-00002.shard");
  const auto e = load_error(dir);
  REQUIRE(e.thrown);
  CHECK(e.message == (dir / "part-00002.shard").string() +
                         ": expected the shard file as listed in manifest.json, found 'no such file'");
}

TEST_CASE("manifest: checksum and id space mismatches") {
  TempDir dir;
  write_ratings_partition(dir.path(), sample_shards(2));
  edit_manifest(dir, [](nlohmann::json& d) { d["shards"][0]["checksum"] = 12345; });
  auto e = load_error(dir);
  REQUIRE(e.thrown);
  CHECK(e.file == dir / "part-00000.shard");
  CHECK(contains(e.message, "expected checksum 12345 as listed in manifest.json"));

  write_ratings_partition(dir.path(), sample_shards(2));
  edit_manifest(dir, [](nlohmann::json& d) { d["users"] = 61; });
  e = load_error(dir);
  REQUIRE(e.thrown);
  CHECK(contains(e.message, "expected id space 61x40 as listed in manifest.json, found '60x40'"));
}

TEST_CASE("manifest: missing, malformed and incomplete manifests") {
  TempDir dir;
  auto e = catch_input_error([&] { read_manifest(dir.path()); });
  REQUIRE(e.thrown);
  CHECK(e.message == (dir / "manifest.json").string() + ": expected a readable manifest file, found 'no such file'");

  write_text(dir / "manifest.json", "{\n  \"format\": \"gyre-partition\",\n  oops\n}\n");
  e = catch_input_error([&] { read_manifest(dir.path()); });
  REQUIRE(e.thrown);
  CHECK(e.line == 3);
  CHECK(contains(e.message, "expected valid JSON"));

  write_ratings_partition(dir.path(), sample_shards(2));
  edit_manifest(dir, [](nlohmann::json& d) { d.erase("items"); });
  e = catch_input_error([&] { read_manifest(dir.path()); });
  CHECK(contains(e.message, "field \"items\""));

  edit_manifest(dir, [](nlohmann::json& d) { d["items"] = 40; d["shards"][0]["file"] = "../../etc/passwd"; });
  e = catch_input_error([&] { read_manifest(dir.path()); });
  CHECK(contains(e.message, "a shard file name without directories"));

  edit_manifest(dir, [](nlohmann::json& d) { d["format"] = "something-else"; });
  e = catch_input_error([&] { read_manifest(dir.path()); });
  CHECK(contains(e.message, "expected \"format\": \"gyre-partition\""));
}

TEST_CASE("manifest: rewriting a directory replaces the old partition") {
  TempDir dir;
  write_ratings_partition(dir.path(), sample_shards(3));
  write_ratings_partition(dir.path(), sample_shards(2));
  CHECK(read_manifest(dir.path()).shards.size() == 2);
  CHECK(read_ratings_partition(dir.path()).size() == 2);
}
