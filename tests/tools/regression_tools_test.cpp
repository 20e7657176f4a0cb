// tests/tools/regression_tools_test.cpp — gyre-gen regression | gyre-partition rows end to end; bad input exits 2 and writes nothing.
#include <doctest/doctest.h>

#include "gyre/data/regression.hpp"
#include "gyre/data/regression_partition.hpp"
#include "support/input_errors.hpp"
#include "support/run_command.hpp"

using gyre::test::build_path;
using gyre::test::contains;
using gyre::test::read_text;
using gyre::test::run_command;
using gyre::test::TempDir;
using gyre::test::write_text;

namespace {

gyre::test::CommandResult gen(const std::filesystem::path& out, const std::string& seed = "5") {
  return run_command({build_path("tools/gyre-gen").string(), "regression", "--samples", "400", "--features", "300",
                      "--nnz-per-row", "20", "--support", "8", "--correlation", "0.5", "--noise", "0.1", "--seed",
                      seed, "--out", out.string()});
}

gyre::test::CommandResult partition_rows(std::vector<std::string> extra) {
  std::vector<std::string> argv{build_path("tools/gyre-partition").string(), "rows"};
  argv.insert(argv.end(), extra.begin(), extra.end());
  return run_command(argv);
}

}  // namespace

TEST_CASE("gyre-gen regression: writes data.libsvm and beta.tsv, the same for the same seed") {
  TempDir dir;
  const auto r = gen(dir / "a");
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  CHECK(contains(r.output, "gyre-gen: wrote 400 samples, 300 features, 8000 non-zeros"));
  CHECK(TempDir::list_dir(dir / "a") == std::vector<std::string>{"beta.tsv", "data.libsvm"});
  REQUIRE(gen(dir / "b").exit_code == 0);
  CHECK(read_text(dir / "a" / "data.libsvm") == read_text(dir / "b" / "data.libsvm"));
  CHECK(read_text(dir / "a" / "beta.tsv") == read_text(dir / "b" / "beta.tsv"));
  CHECK(gyre::data::load_regression(dir / "a").samples() == 400);
}

TEST_CASE("gyre-gen regression: impossible options are usage errors and write nothing") {
  TempDir dir;
  const auto r = run_command({build_path("tools/gyre-gen").string(), "regression", "--samples", "10", "--features",
                              "5", "--nnz-per-row", "2", "--support", "6", "--correlation", "0.5", "--noise", "0.1",
                              "--seed", "1", "--out", (dir / "o").string()});
  CHECK(r.exit_code != 0);
  CHECK(contains(r.output, "--support"));
  const auto c = run_command({build_path("tools/gyre-gen").string(), "regression", "--samples", "10", "--features",
                              "5", "--nnz-per-row", "2", "--support", "1", "--correlation", "1.5", "--noise", "0.1",
                              "--seed", "1", "--out", (dir / "o").string()});
  CHECK(c.exit_code != 0);
  CHECK(dir.entries().empty());
}

TEST_CASE("gyre-partition rows: shards what gyre-gen wrote, balanced, and the shards load back") {
  TempDir dir;
  REQUIRE(gen(dir / "g").exit_code == 0);
  const auto r = partition_rows({"--input", (dir / "g" / "data.libsvm").string(), "--parts", "4", "--out",
                                 (dir / "parts").string()});
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  CHECK(contains(r.output, "gyre-partition: 400 samples, 300 features, 8000 non-zeros into 4 parts"));
  CHECK(contains(r.output, "non-zeros per part: 2000 2000 2000 2000"));
  CHECK(contains(r.output, "balance (max/mean): 1.0000"));
  CHECK(TempDir::list_dir(dir / "parts") == std::vector<std::string>{"manifest.json", "part-00000.shard",
                                                                     "part-00001.shard", "part-00002.shard",
                                                                     "part-00003.shard"});
  const auto original = gyre::data::read_libsvm(dir / "g" / "data.libsvm");
  const auto merged = gyre::data::load_regression(dir / "parts");
  CHECK(merged.values == original.values);
  CHECK(merged.y == original.y);
}

TEST_CASE("gyre-partition rows: CSV with a named response keeps the feature names; MatrixMarket with a response") {
  TempDir dir;
  write_text(dir / "d.csv", "a,y,b\n1,2,0\n0,3,4\n5,6,7\n");
  auto r = partition_rows({"--input", (dir / "d.csv").string(), "--parts", "2", "--out", (dir / "c").string(),
                           "--response-column", "y"});
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  CHECK(read_text(dir / "c" / "feature_names.txt") == "a\nb\n");
  CHECK(gyre::data::load_regression(dir / "c").y == std::vector<double>{2, 3, 6});

  write_text(dir / "m.mtx", "%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1\n2 2 1\n");
  write_text(dir / "resp.txt", "1\n2\n");
  r = partition_rows({"--input", (dir / "m.mtx").string(), "--parts", "1", "--out", (dir / "m").string(), "--response",
                      (dir / "resp.txt").string()});
  REQUIRE(r.exit_code == 0);
  CHECK(gyre::data::load_regression(dir / "m").y == std::vector<double>{1, 2});
}

TEST_CASE("gyre-partition rows: bad input exits 2 naming file and line, and writes nothing") {
  TempDir dir;
  const auto expect_bad = [&](const std::string& name, const std::string& text, const std::string& message,
                              std::vector<std::string> extra = {}) {
    write_text(dir / name, text);
    std::vector<std::string> argv{"--input", (dir / name).string(), "--parts", "2", "--out", (dir / "out").string()};
    argv.insert(argv.end(), extra.begin(), extra.end());
    const auto r = partition_rows(argv);
    INFO(r.output);
    CHECK(r.exit_code == 2);
    CHECK(contains(r.output, "gyre-partition: error: " + message));
    CHECK(!std::filesystem::exists(dir / "out"));
  };
  expect_bad("zero.libsvm", "1 1:1\n2 0:1\n", (dir / "zero.libsvm").string() + ":2: expected a 1-based feature index");
  expect_bad("bad.csv", "a,y\n1,2\nx,3\n",
             (dir / "bad.csv").string() + ":3: expected a finite number in column \"a\", found 'x'");
  expect_bad("ragged.csv", "a,b,y\n1,2,3\n1,2\n",
             (dir / "ragged.csv").string() + ":3: expected 3 fields as in the header (line 1), found '2 fields'");
  write_text(dir / "m.response", "");
  expect_bad("m.mtx", "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 1\n",
             (dir / "m.response").string() + ": expected 2 values, one per row of " + (dir / "m.mtx").string() +
                 ", found 'an empty response'");
  expect_bad("x.libsvm", "1 1:1\n", "a response file or column applies", {"--response-column", "3"});
}
