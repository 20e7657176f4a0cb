// tests/tools/gyre_gen_test.cpp — gyre-gen end to end: files, determinism, usage errors.
#include <doctest/doctest.h>

#include "gyre/data/ratings.hpp"
#include "support/input_errors.hpp"
#include "support/run_command.hpp"

using gyre::test::build_path;
using gyre::test::contains;
using gyre::test::read_text;
using gyre::test::run_command;
using gyre::test::TempDir;

namespace {

std::vector<std::string> gen_ratings(const TempDir& dir, const std::string& seed, const std::string& tag) {
  return {build_path("tools/gyre-gen").string(),
          "ratings",
          "--users", "300",
          "--items", "200",
          "--ratings", "5000",
          "--rank", "4",
          "--noise", "0.1",
          "--seed", seed,
          "--train", (dir / ("train" + tag + ".tsv")).string(),
          "--test", (dir / ("test" + tag + ".tsv")).string()};
}

}  // namespace

TEST_CASE("gyre-gen: ratings writes train and test triples and a summary line") {
  TempDir dir;
  const auto r = run_command(gen_ratings(dir, "3", ""));
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  CHECK(contains(r.output, "4500 train ratings"));
  CHECK(contains(r.output, "500 test ratings"));
  CHECK(dir.entries() == std::vector<std::string>{"test.tsv", "train.tsv"});
  const auto train = gyre::data::read_ratings(dir / "train.tsv");
  CHECK(train.ratings.size() == 4500);
  CHECK(train.users <= 300);
  CHECK(gyre::data::read_ratings(dir / "test.tsv").ratings.size() == 500);
}

TEST_CASE("gyre-gen: same seed, same bytes; other seed, other bytes") {
  TempDir dir;
  REQUIRE(run_command(gen_ratings(dir, "9", "a")).exit_code == 0);
  REQUIRE(run_command(gen_ratings(dir, "9", "b")).exit_code == 0);
  REQUIRE(run_command(gen_ratings(dir, "10", "c")).exit_code == 0);
  CHECK(read_text(dir / "traina.tsv") == read_text(dir / "trainb.tsv"));
  CHECK(read_text(dir / "testa.tsv") == read_text(dir / "testb.tsv"));
  CHECK(read_text(dir / "traina.tsv") != read_text(dir / "trainc.tsv"));
}

TEST_CASE("gyre-gen: usage errors write nothing") {
  TempDir dir;
  auto args = gen_ratings(dir, "1", "");
  args[3] = "10";  // --users 10 x --items 200 < 5000 ratings
  auto r = run_command(args);
  CHECK(r.exit_code != 0);
  CHECK(contains(r.output, "--ratings"));

  r = run_command({build_path("tools/gyre-gen").string()});
  CHECK(r.exit_code != 0);
  CHECK(contains(r.output, "subcommand"));

  args = gen_ratings(dir, "1", "");
  args.push_back("--test-fraction");
  args.push_back("2");
  r = run_command(args);
  CHECK(r.exit_code != 0);
  CHECK(dir.entries().empty());
}

TEST_CASE("gyre-gen: an unwritable output is refused before generating (exit 2) and leaves no train file behind") {
  TempDir dir;
  auto args = gen_ratings(dir, "1", "");
  args.back() = (dir / "no-such-dir" / "test.tsv").string();
  const auto r = run_command(args);
  INFO(r.output);
  CHECK(r.exit_code == 2);  // a usage error, found up front (it was 1, found after generating)
  CHECK(contains(r.output, "gyre-gen: error: --test "));
  CHECK(contains(r.output, "no-such-dir does not exist"));
  CHECK(dir.entries().empty());
}

TEST_CASE("gyre-gen: corpus --no-truth writes the same documents without the planted topics and mixtures") {
  TempDir dir;
  const auto gen = [&](const std::string& out, bool truth) {
    std::vector<std::string> argv{build_path("tools/gyre-gen").string(), "corpus", "--docs", "50", "--vocab", "300",
                                  "--topics", "4", "--seed", "7", "--out", (dir / out).string()};
    if (!truth) argv.push_back("--no-truth");
    const auto r = run_command(argv);
    INFO(r.output);
    REQUIRE(r.exit_code == 0);
  };
  gen("with", true);
  gen("without", false);
  CHECK(TempDir::list_dir(dir / "with") == std::vector<std::string>{"doc_topics.tsv", "docword.txt", "topics.tsv", "vocab.txt"});
  CHECK(TempDir::list_dir(dir / "without") == std::vector<std::string>{"docword.txt", "vocab.txt"});
  CHECK(read_text(dir / "with" / "docword.txt") == read_text(dir / "without" / "docword.txt"));
  CHECK(read_text(dir / "with" / "vocab.txt") == read_text(dir / "without" / "vocab.txt"));
}
