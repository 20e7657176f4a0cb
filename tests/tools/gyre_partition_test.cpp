// tests/tools/gyre_partition_test.cpp — gyre-gen | gyre-partition end to end, and bad input exits 2 cleanly.
#include <doctest/doctest.h>

#include <algorithm>

#include "gyre/data/manifest.hpp"
#include "gyre/data/ratings.hpp"
#include "gyre/data/ratings_partition.hpp"
#include "support/input_errors.hpp"
#include "support/run_command.hpp"

using gyre::test::build_path;
using gyre::test::contains;
using gyre::test::run_command;
using gyre::test::TempDir;
using gyre::test::write_text;

namespace {

gyre::test::CommandResult partition_ratings(const std::filesystem::path& input, const std::filesystem::path& out,
                                            const std::string& parts = "4") {
  return run_command({build_path("tools/gyre-partition").string(), "ratings", "--input", input.string(), "--parts",
                      parts, "--out", out.string()});
}

}  // namespace

TEST_CASE("gyre-partition: shards what gyre-gen wrote, and the shards load back") {
  TempDir dir;
  const auto gen = run_command({build_path("tools/gyre-gen").string(), "ratings", "--users", "500", "--items", "300",
                                "--ratings", "20000", "--rank", "4", "--noise", "0.1", "--seed", "2", "--train",
                                (dir / "train.tsv").string(), "--test", (dir / "test.tsv").string()});
  REQUIRE_MESSAGE(gen.exit_code == 0, gen.output);

  const auto r = partition_ratings(dir / "train.tsv", dir / "parts");
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  CHECK(contains(r.output, "18000 ratings"));
  CHECK(contains(r.output, "into 4 parts"));
  CHECK(contains(r.output, "balance (max/mean): 1.0"));
  CHECK(TempDir::list_dir(dir / "parts") ==
        std::vector<std::string>{"items.txt", "manifest.json", "part-00000.shard", "part-00001.shard",
                                 "part-00002.shard", "part-00003.shard", "users.txt"});

  const auto original = gyre::data::read_ratings(dir / "train.tsv");
  const auto shards = gyre::data::read_ratings_partition(dir / "parts");
  REQUIRE(shards.size() == 4);
  std::size_t total = 0;
  for (const auto& s : shards) {
    total += s.ratings.size();
    CHECK(s.users == original.users);
    CHECK(s.items == original.items);
  }
  CHECK(total == original.ratings.size());
  // Read back with the input's ids: each user's ratings, in the file's order, in one shard.
  const auto by_user = [](std::vector<gyre::data::Rating> ratings) {
    std::stable_sort(ratings.begin(), ratings.end(), [](const auto& a, const auto& b) { return a.user < b.user; });
    return ratings;
  };
  std::vector<gyre::data::Rating> back;
  for (const auto& s : shards) back.insert(back.end(), s.ratings.begin(), s.ratings.end());
  const auto expected = by_user(original.ratings), found = by_user(back);
  REQUIRE(found.size() == expected.size());
  for (std::size_t i = 0; i < found.size(); ++i) {
    CHECK(found[i].user == expected[i].user);
    CHECK(found[i].item == expected[i].item);
    CHECK(found[i].value == expected[i].value);
  }
}

TEST_CASE("gyre-partition: a missing input file exits 2 and creates nothing") {
  TempDir dir;
  const auto r = partition_ratings(dir / "absent.tsv", dir / "parts");
  CHECK(r.exit_code == 2);
  CHECK(r.output == "gyre-partition: error: " + (dir / "absent.tsv").string() +
                        ": expected a readable file, found 'No such file or directory'\n");
  CHECK(dir.entries().empty());
}

TEST_CASE("gyre-partition: a malformed line exits 2 naming file and line, leaving no output") {
  TempDir dir;
  write_text(dir / "bad.tsv", "0 0 1\n1 1 2\n2 2\n");
  const auto r = partition_ratings(dir / "bad.tsv", dir / "parts");
  CHECK(r.exit_code == 2);
  CHECK(contains(r.output, "gyre-partition: error: " + (dir / "bad.tsv").string() + ":3: expected 3 fields"));
  CHECK(dir.entries() == std::vector<std::string>{"bad.tsv"});

  // An existing output directory keeps its contents untouched and gains no temp files.
  std::filesystem::create_directory(dir / "parts");
  write_text(dir / "parts" / "keep.txt", "x");
  CHECK(partition_ratings(dir / "bad.tsv", dir / "parts").exit_code == 2);
  CHECK(TempDir::list_dir(dir / "parts") == std::vector<std::string>{"keep.txt"});
}

TEST_CASE("gyre-partition: usage errors") {
  TempDir dir;
  write_text(dir / "ok.tsv", "0 0 1\n");
  const auto r = partition_ratings(dir / "ok.tsv", dir / "parts", "0");
  CHECK(r.exit_code != 0);
  CHECK(contains(r.output, "--parts"));
  CHECK(dir.entries() == std::vector<std::string>{"ok.tsv"});
}
