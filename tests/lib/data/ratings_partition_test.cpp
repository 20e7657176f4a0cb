// tests/lib/data/ratings_partition_test.cpp — a ratings partition with dense ids reads back whole as its input, and one shard alone with the whole set's statistics; damaged plan files are refused by file and line.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "gyre/data/manifest.hpp"
#include "gyre/data/partition.hpp"
#include "gyre/data/ratings_partition.hpp"
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

// Sparse original ids (users 10·k + 3, items 1000·j), as gyre-partition gets them from a file.
RatingsSet input_ratings() {
  RatingsSet set;
  for (std::uint32_t k = 0; k < 40; ++k)
    for (std::uint32_t j = 0; j < 12; ++j)
      if ((k * 7 + j * 3) % 5 != 0)
        set.ratings.push_back({10 * k + 3, 1000 * ((k + j) % 15), static_cast<float>(1 + (k * j) % 5) / 2.0f});
  set.users = 400;
  set.items = 15000;
  return set;
}

// The input split as gyre-partition splits it, in dense ids, written to `dir`.
std::vector<RatingsSet> write_dense(const std::filesystem::path& dir, std::uint32_t parts, IdTables& ids) {
  RatingsSet set = input_ratings();
  RatingsSet* sets[] = {&set};
  ids = compact_ids(sets);
  auto shards = split_by_user(set, partition_users(set, parts));
  write_ratings_partition(dir, shards, ids);
  return shards;
}

}  // namespace

TEST_CASE("ratings partition with dense ids: read whole, it gives back the input's ids; one part alone, the whole set's statistics") {
  TempDir dir;
  IdTables ids;
  const auto shards = write_dense(dir.path(), 3, ids);
  CHECK(dir.entries() == std::vector<std::string>{"items.txt", "manifest.json", "part-00000.shard", "part-00001.shard",
                                                  "part-00002.shard", "users.txt"});
  const Manifest m = read_manifest(dir.path(), "ratings");
  CHECK(m.dense_ids);
  CHECK(m.users == 40);
  CHECK(m.items == 15);

  const auto whole = read_ratings_partition(dir.path());
  REQUIRE(whole.size() == 3);
  for (std::size_t p = 0; p < 3; ++p) {
    REQUIRE(whole[p].ratings.size() == shards[p].ratings.size());
    CHECK(whole[p].users == 394);  // one past the largest original user id
    CHECK(whole[p].items == 14001);
    for (std::size_t i = 0; i < whole[p].ratings.size(); ++i) {
      CHECK(whole[p].ratings[i].user == ids.users.original[shards[p].ratings[i].user]);
      CHECK(whole[p].ratings[i].item == ids.items.original[shards[p].ratings[i].item]);
      CHECK(whole[p].ratings[i].value == shards[p].ratings[i].value);
    }
  }

  // Part 1 alone, with the other shards gone: the statistics are those of all three shards.
  std::filesystem::remove(dir / "part-00000.shard");
  std::filesystem::remove(dir / "part-00002.shard");
  const auto part = read_ratings_part(dir.path(), 1);
  REQUIRE(part);
  const RatingsStats all = ratings_stats(shards, 40, 15);
  CHECK(part->ids.users.original == ids.users.original);
  CHECK(part->ids.items.original == ids.items.original);
  CHECK(part->stats.users == 40);
  CHECK(part->stats.user_part == all.user_part);
  CHECK(part->stats.item_ratings == all.item_ratings);
  CHECK(part->stats.parts == all.parts);
  CHECK(part->stats.total() == all.total());
  REQUIRE(part->shard.ratings.size() == shards[1].ratings.size());
  for (std::size_t i = 0; i < part->shard.ratings.size(); ++i) CHECK(part->shard.ratings[i].user == shards[1].ratings[i].user);
}

TEST_CASE("ratings partition: a partition that keeps the input's ids is not read by part") {
  TempDir dir;
  RatingsSet set = input_ratings();
  write_ratings_partition(dir.path(), split_by_user(set, partition_users(set, 2)));
  CHECK_FALSE(read_manifest(dir.path()).dense_ids);
  CHECK_FALSE(read_ratings_part(dir.path(), 0));
  CHECK(read_ratings_partition(dir.path()).size() == 2);
}

TEST_CASE("ratings partition: damaged users.txt, items.txt or moments are refused naming the file (and line)") {
  TempDir dir;
  IdTables ids;
  const auto check_error = [&](const std::filesystem::path& file, std::size_t line, const std::string& text) {
    for (const bool whole : {true, false}) {
      CAPTURE(whole);
      const auto e = catch_input_error([&] {
        if (whole)
          read_ratings_partition(dir.path());
        else
          read_ratings_part(dir.path(), 1);
      });
      REQUIRE(e.thrown);
      CHECK(e.file == file);
      CHECK(e.line == line);
      CHECK_MESSAGE(contains(e.message, text), e.message);
    }
  };
  const auto replace_line = [&](const char* name, std::size_t line, const std::string& with) {
    std::string text = read_text(dir / name), out;
    std::size_t at = 0;
    for (std::size_t n = 1; at < text.size(); ++n) {
      const std::size_t end = text.find('\n', at);
      out += n == line ? with : text.substr(at, end - at);
      out += '\n';
      at = end + 1;
    }
    write_text(dir / name, out);
  };

  write_dense(dir.path(), 3, ids);
  replace_line("users.txt", 4, "33 x");
  check_error(dir / "users.txt", 4, "\"original_id part\"");

  write_dense(dir.path(), 3, ids);
  replace_line("users.txt", 2, "13 7");
  check_error(dir / "users.txt", 2, "a part below 3 as listed in manifest.json");

  write_dense(dir.path(), 3, ids);
  replace_line("users.txt", 3, "3 0");
  check_error(dir / "users.txt", 3, "original ids in ascending order");

  write_dense(dir.path(), 3, ids);
  write_text(dir / "items.txt", read_text(dir / "items.txt") + "99999 1\n");
  check_error(dir / "items.txt", 16, "15 lines, one per item, as listed in manifest.json");

  write_dense(dir.path(), 3, ids);
  replace_line("items.txt", 1, "0 1");
  check_error(dir / "items.txt", 0, "ratings summing to");

  // A user moved to another part in users.txt: the shard that holds it says so.
  const auto shards = write_dense(dir.path(), 3, ids);
  const std::uint32_t user = shards[1].ratings.front().user;
  replace_line("users.txt", user + 1, std::to_string(ids.users.original[user]) + " 2");
  check_error(dir / "part-00001.shard", 0, "only users placed in part 1 by users.txt");

  write_dense(dir.path(), 3, ids);
  edit_manifest(dir, [](nlohmann::json& d) { d["shards"][1]["sum"] = d["shards"][1]["sum"].get<double>() + 0.5; });
  check_error(dir / "part-00001.shard", 0, "ratings summing to");

  write_dense(dir.path(), 3, ids);
  edit_manifest(dir, [](nlohmann::json& d) { d["ids"] = "sparse"; });
  check_error(dir / "manifest.json", 0, "\"ids\": \"dense\"");
}
