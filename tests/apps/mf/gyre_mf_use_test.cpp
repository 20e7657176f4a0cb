// tests/apps/mf/gyre_mf_use_test.cpp — gyre-mf predict and recommend as a user runs them: scores, order, exclusion, and every bad input.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "gyre_mf_run.hpp"
#include "tiny_model.hpp"

using gyre::test::read_text;
using gyre::test::TempDir;
using gyre::test::write_text;

namespace {

struct Fixture {
  TempDir dir;
  std::string model = (dir / "model").string();
  std::string out = (dir / "out.tsv").string();
  Fixture() { gyre::test::write_tiny_model(dir / "model"); }

  gyre::test::CommandResult run(std::vector<std::string> argv) const {
    argv.insert(argv.begin(), gyre::test::gyre_mf());
    return gyre::test::run_command(argv);
  }
  // Runs a command expected to fail on line `line` of `file`, and checks nothing was written.
  void expect_error(const std::vector<std::string>& argv, const std::filesystem::path& file, int line,
                    const std::string& fragment) const {
    const auto r = run(argv);
    CHECK(r.exit_code == 2);
    const std::string where = file.string() + (line > 0 ? ":" + std::to_string(line) + ":" : ":");
    CHECK_MESSAGE(r.output.find(where) != std::string::npos, r.output);
    CHECK_MESSAGE(r.output.find(fragment) != std::string::npos, r.output);
    CHECK(!std::filesystem::exists(out));
  }
};

}  // namespace

TEST_CASE("gyre-mf predict writes the hand-computed scores, in file order, and the RMSE when rated") {
  Fixture f;
  write_text(f.dir / "pairs.tsv", "# user item\n10 2\n20,4\n30\t3\n\n10 1\n");
  auto r = f.run({"predict", "--model", f.model, "--pairs", (f.dir / "pairs.tsv").string(), "--out", f.out});
  REQUIRE_MESSAGE(r.exit_code == 0, r.output);
  CHECK(read_text(f.out) == "10\t2\t6\n20\t4\t6.25\n30\t3\t2.5\n10\t1\t4.5\n");
  CHECK(r.output.find("RMSE") == std::string::npos);

  // Errors 1, 0.25 (and a pair without rating, ignored): RMSE sqrt((1 + 0.0625) / 2).
  write_text(f.dir / "rated.tsv", "10 2 5\n20 4 6.5\n30 3\n");
  r = f.run({"predict", "--model", f.model, "--pairs", (f.dir / "rated.tsv").string(), "--threads", "1"});
  REQUIRE_MESSAGE(r.exit_code == 0, r.output);
  CHECK_MESSAGE(r.output.find("RMSE 0.728869 over the 2 with a rating") != std::string::npos, r.output);
  CHECK(r.output.find("20\t4\t6.25\n") != std::string::npos);  // --out defaults to stdout
}

TEST_CASE("gyre-mf recommend: best items first, ties by item id, rated items left out") {
  Fixture f;
  write_text(f.dir / "users.txt", "10\n30\n20\n");
  auto r = f.run({"recommend", "--model", f.model, "--users", (f.dir / "users.txt").string(), "--top", "3", "--out",
                  f.out});
  REQUIRE_MESSAGE(r.exit_code == 0, r.output);
  CHECK(read_text(f.out) ==
        "10\t2\t6\t1\n10\t1\t4.5\t2\n10\t4\t4.5\t3\n"
        "30\t2\t5.5\t1\n30\t4\t5.5\t2\n30\t1\t5\t3\n"
        "20\t4\t6.25\t1\n20\t1\t4.75\t2\n20\t2\t3.25\t3\n");

  // User 99 and item 7 are not in the model: skipped. User 10 rated item 2 twice.
  write_text(f.dir / "seen.tsv", "10 2 5\n10 1 4\n30 4 3\n99 1 5\n10 7 1\n10 2 5\n");
  r = f.run({"recommend", "--model", f.model, "--users", (f.dir / "users.txt").string(), "--top", "2",
             "--exclude-rated", (f.dir / "seen.tsv").string(), "--out", f.out});
  REQUIRE_MESSAGE(r.exit_code == 0, r.output);
  CHECK(read_text(f.out) ==
        "10\t4\t4.5\t1\n10\t3\t2.5\t2\n"
        "30\t2\t5.5\t1\n30\t1\t5\t2\n"
        "20\t4\t6.25\t1\n20\t1\t4.75\t2\n");

  // More than there are items: all of them.
  r = f.run({"recommend", "--model", f.model, "--users", (f.dir / "users.txt").string(), "--top", "10",
             "--exclude-rated", (f.dir / "seen.tsv").string(), "--out", f.out});
  REQUIRE_MESSAGE(r.exit_code == 0, r.output);
  CHECK(read_text(f.out).find("10\t3\t2.5\t2\n30") != std::string::npos);
}

TEST_CASE("gyre-mf predict --strict and recommend: an id unknown to the model is an error at file:line, exit 2") {
  Fixture f;
  const auto pairs = f.dir / "pairs.tsv";
  write_text(pairs, "10 1\n20 9\n");
  f.expect_error({"predict", "--model", f.model, "--pairs", pairs.string(), "--strict", "--out", f.out}, pairs, 2,
                 "item 9, unknown to the model");
  write_text(pairs, "10 1\n\n77 1\n");
  f.expect_error({"predict", "--model", f.model, "--pairs", pairs.string(), "--strict", "--out", f.out}, pairs, 3,
                 (f.dir / "model" / "user_factors.tsv").string());
  const auto users = f.dir / "users.txt";
  write_text(users, "10\n77\n");
  f.expect_error({"recommend", "--model", f.model, "--users", users.string(), "--top", "2", "--out", f.out}, users, 2,
                 "user 77, unknown to the model");
}

TEST_CASE("gyre-mf predict: a pair the model half knows is scored from the mean and the known side's bias, and counted") {
  Fixture f;
  const auto pairs = f.dir / "pairs.tsv";
  // Mean 3; user 10's bias .5, item 2's .5 (tiny_model.hpp); user 77 and item 9 are unknown.
  write_text(pairs, "10 9\n77 2\n77 9\n20 4\n");
  const auto r = f.run({"predict", "--model", f.model, "--pairs", pairs.string(), "--out", f.out});
  REQUIRE_MESSAGE(r.exit_code == 0, r.output);
  CHECK(read_text(f.out) == "10\t9\t3.5\n77\t2\t3.5\n77\t9\t3\n20\t4\t6.25\n");
  CHECK_MESSAGE(r.output.find("3 of 4 pairs name a user or item the model does not know (first: line 1: item 9)") !=
                    std::string::npos,
                r.output);
}

TEST_CASE("gyre-mf predict and recommend: malformed input and model files") {
  Fixture f;
  const auto pairs = f.dir / "pairs.tsv";
  write_text(pairs, "10 1 2 3\n");
  f.expect_error({"predict", "--model", f.model, "--pairs", pairs.string(), "--out", f.out}, pairs, 1, "2 or 3 fields");
  write_text(pairs, "10 1 nan\n");
  f.expect_error({"predict", "--model", f.model, "--pairs", pairs.string(), "--out", f.out}, pairs, 1, "finite number");
  write_text(pairs, "10 1\n");

  SUBCASE("a factor row of the wrong width") {
    write_text(f.dir / "model" / "item_factors.tsv", "1\t0\t1\t1\n2\t0.5\t2\n");
    f.expect_error({"predict", "--model", f.model, "--pairs", pairs.string(), "--out", f.out},
                   f.dir / "model" / "item_factors.tsv", 2, "4 fields");
  }
  SUBCASE("a missing factor file") {
    std::filesystem::remove(f.dir / "model" / "user_factors.tsv");
    f.expect_error({"predict", "--model", f.model, "--pairs", pairs.string(), "--out", f.out},
                   f.dir / "model" / "user_factors.tsv", 0, "");
  }
  SUBCASE("a header that is not gyre-mf's") {
    write_text(f.dir / "model" / "model.json", R"({"format":"other"})");
    f.expect_error({"predict", "--model", f.model, "--pairs", pairs.string(), "--out", f.out},
                   f.dir / "model" / "model.json", 0, "gyre-mf");
  }
  SUBCASE("counts that disagree with the header") {
    write_text(f.dir / "model" / "item_factors.tsv", "1\t0\t1\t1\n");
    f.expect_error({"predict", "--model", f.model, "--pairs", pairs.string(), "--out", f.out},
                   f.dir / "model" / "model.json", 0, "1 item rows");
  }
  SUBCASE("not a directory") {
    f.expect_error({"predict", "--model", pairs.string(), "--pairs", pairs.string(), "--out", f.out}, pairs, 0,
                   "not a directory");
  }
  SUBCASE("--top must be a positive number") {
    write_text(f.dir / "users.txt", "10\n");
    const auto r = f.run({"recommend", "--model", f.model, "--users", (f.dir / "users.txt").string(), "--top", "0"});
    CHECK(r.exit_code == 2);
  }
}
