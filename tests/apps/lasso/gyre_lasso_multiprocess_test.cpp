// tests/apps/lasso/gyre_lasso_multiprocess_test.cpp — gyre-lasso as several processes over tcp on loopback.
#include <doctest/doctest.h>

#include "support/multiprocess.hpp"
#include "support/run_command.hpp"
#include "support/temp_dir.hpp"

using gyre::test::build_path;
using gyre::test::disturb_rank_1;
using gyre::test::expect_survivors_stopped;
using gyre::test::read_text;
using gyre::test::run_command;
using gyre::test::run_ranks;
using gyre::test::TempDir;

namespace {

std::string lasso() { return build_path("apps/lasso/gyre-lasso").string(); }

void generate(const TempDir& dir, const std::string& samples) {
  const auto r = run_command({build_path("tools/gyre-gen").string(), "regression", "--samples", samples, "--features",
                              "300", "--nnz-per-row", "20", "--support", "10", "--correlation", "0.5", "--noise", "0.1", "--seed", "8",
                              "--out", (dir / "data").string()});
  REQUIRE_MESSAGE(r.exit_code == 0, r.output);
}

std::vector<std::string> common(const TempDir& dir) {
  return {lasso(), "--data", (dir / "data").string(), "--path", "4", "--lambda-ratio", "0.05", "--batch", "16",
          "--depth", "3", "--threads", "1", "--tol", "1e-10"};
}

}  // namespace

TEST_CASE("3 processes over tcp write coefficients bitwise identical to --workers 3 in one process") {
  TempDir dir;
  generate(dir, "1200");
  auto single = common(dir);
  single.insert(single.end(), {"--workers", "3", "--quiet", "--out", (dir / "single.tsv").string()});
  const auto s = run_command(single);
  REQUIRE_MESSAGE(s.exit_code == 0, s.output);

  auto multi = common(dir);
  multi.insert(multi.end(), {"--out", (dir / "multi.tsv").string(), "--metrics", (dir / "multi.jsonl").string()});
  const auto ranks = run_ranks(multi, 3);
  for (const auto& r : ranks) CHECK_MESSAGE(r.exit_code == 0, r.output);
  CHECK(read_text(dir / "single.tsv") == read_text(dir / "multi.tsv"));
  CHECK(ranks[0].output.find("lambda_max") != std::string::npos);  // rank 0 reports for the job
  CHECK_MESSAGE(ranks[1].output.empty(), ranks[1].output);
  CHECK_MESSAGE(ranks[2].output.empty(), ranks[2].output);
  CHECK(read_text(dir / "multi.jsonl").find("\"lambda_index\":3") != std::string::npos);
}

TEST_CASE("a multi-process gyre-lasso job without a token is refused before the data is read") {
  TempDir dir;
  auto argv = common(dir);  // the data directory does not even exist
  argv.insert(argv.end(), {"--processes", "2", "--process-rank", "1", "--coordinator", "127.0.0.1:1"});
  const auto r = run_command(argv);
  CHECK(r.exit_code == 2);
  CHECK_MESSAGE(r.output.find("token") != std::string::npos, r.output);
}

TEST_CASE("when one gyre-lasso process is killed, the others stop with an error naming it") {
  TempDir dir;
  generate(dir, "4000");
  // A check after every coordinate update and a long path: far longer than the test.
  const std::string endless = lasso() + " --data data --path 200 --lambda-ratio 1e-4 --tol 1e-15 --check-every 1"
                              " --batch 4 --threads 1";
  expect_survivors_stopped(dir, disturb_rank_1(dir, endless, "kill -9", "round "), 10000);
}
