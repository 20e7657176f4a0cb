// tests/apps/mismatched_ranks_test.cpp — ranks of one job started with other settings or data are refused before training, naming the difference (issue 20, defect 3).
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "support/multiprocess.hpp"
#include "support/run_command.hpp"
#include "support/temp_dir.hpp"

using gyre::test::build_path;
using gyre::test::CommandResult;
using gyre::test::run_command;
using gyre::test::TempDir;

namespace {

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// A short connect timeout, so that rank 0, left waiting for a member it refused, gives up soon.
std::vector<CommandResult> run_job(const std::vector<std::vector<std::string>>& per_rank) {
  return gyre::test::run_ranks(per_rank, "4");
}

// Rank 1 is told what differs and stops at once; rank 0 stops too, naming the refusal; nobody
// crashes (the defect was a heap overflow on rank 0) and nobody trains.
void expect_refused(const std::vector<CommandResult>& ranks, const std::string& setting) {
  REQUIRE(ranks.size() == 2);
  for (const auto& r : ranks) {
    INFO(r.output);
    CHECK(r.exit_code != 0);
    CHECK(r.exit_code < 128);  // an error, not a signal
    CHECK_FALSE(has(r.output, "epoch   1"));
  }
  CHECK_MESSAGE(has(ranks[1].output, "rank 1's settings differ from rank 0's: " + setting), ranks[1].output);
  CHECK_MESSAGE(has(ranks[0].output, setting), ranks[0].output);
}

void generate_named_ratings(const TempDir& dir, const std::string& name, const std::string& seed) {
  const auto r = run_command({build_path("tools/gyre-gen").string(), "ratings", "--users", "200", "--items", "100",
                              "--ratings", "4000", "--rank", "3", "--noise", "0.1", "--seed", seed, "--train",
                              (dir / (name + ".tsv")).string(), "--test", (dir / (name + "-test.tsv")).string()});
  REQUIRE_MESSAGE(r.exit_code == 0, r.output);
}

std::vector<std::string> mf_rank_argv(const TempDir& dir, const std::string& train) {
  return {build_path("apps/mf/gyre-mf").string(), "--train", (dir / train).string(), "--epochs", "3", "--threads", "1"};
}

}  // namespace

TEST_CASE("gyre-mf: --lambda, --biases on one rank only, or same-shape other data: refused, naming the setting") {
  TempDir dir;
  generate_named_ratings(dir, "a", "1");
  generate_named_ratings(dir, "b", "2");  // the same shape, other ratings
  auto other = mf_rank_argv(dir, "a.tsv");
  other.insert(other.end(), {"--lambda", "0.05"});
  expect_refused(run_job({mf_rank_argv(dir, "a.tsv"), other}), "--lambda is 0.05 on rank 1, 0.03 on rank 0");
  other = mf_rank_argv(dir, "a.tsv");
  other.push_back("--biases");
  expect_refused(run_job({mf_rank_argv(dir, "a.tsv"), other}), "--biases is 1 on rank 1, 0 on rank 0");
  expect_refused(run_job({mf_rank_argv(dir, "a.tsv"), mf_rank_argv(dir, "b.tsv")}), "input --train is");
}

TEST_CASE("gyre-mf: the same settings given differently (a default spelled out, another path to the same data) still form one job") {
  TempDir dir;
  generate_named_ratings(dir, "a", "1");
  std::filesystem::copy_file(dir / "a.tsv", dir / "copy.tsv");
  auto spelled = mf_rank_argv(dir, "copy.tsv");
  spelled.insert(spelled.end(), {"--lambda", "0.030", "--quiet"});
  for (const auto& r : run_job({mf_rank_argv(dir, "a.tsv"), spelled})) CHECK_MESSAGE(r.exit_code == 0, r.output);
}

TEST_CASE("gyre-lda: another corpus or another --alpha on one rank is refused") {
  TempDir dir;
  for (const char* seed : {"3", "4"}) {
    const auto r = run_command({build_path("tools/gyre-gen").string(), "corpus", "--docs", "100", "--vocab", "80",
                                "--topics", "3", "--doc-length", "20", "--seed", seed, "--out",
                                (dir / (std::string("c") + seed)).string()});
    REQUIRE_MESSAGE(r.exit_code == 0, r.output);
  }
  const auto lda = [&](const char* corpus) {
    return std::vector<std::string>{build_path("apps/lda/gyre-lda").string(), "--corpus", (dir / corpus).string(),
                                    "--topics", "3", "--epochs", "2", "--threads", "1"};
  };
  expect_refused(run_job({lda("c3"), lda("c4")}), "input --corpus is");
  auto alpha = lda("c3");
  alpha.insert(alpha.end(), {"--alpha", "0.5"});
  expect_refused(run_job({lda("c3"), alpha}), "--alpha is 0.5 on rank 1");
}

TEST_CASE("gyre-lasso and gyre-logreg: --no-intercept or another --lr on one rank is refused") {
  TempDir dir;
  const auto r = run_command({build_path("tools/gyre-gen").string(), "regression", "--samples", "100", "--features",
                              "20", "--nnz-per-row", "4", "--support", "3", "--correlation", "0", "--noise", "0.1",
                              "--seed", "5", "--out", (dir / "reg").string()});
  REQUIRE_MESSAGE(r.exit_code == 0, r.output);
  const std::string data = (dir / "reg" / "data.libsvm").string();
  const std::vector<std::string> lasso{build_path("apps/lasso/gyre-lasso").string(), "--data", data, "--lambda", "0.1"};
  auto no_intercept = lasso;
  no_intercept.push_back("--no-intercept");
  expect_refused(run_job({lasso, no_intercept}), "--no-intercept is 1 on rank 1, 0 on rank 0");
  const std::vector<std::string> logreg{build_path("apps/logreg/gyre-logreg").string(), "--data", data, "--steps", "5"};
  auto lr = logreg;
  lr.insert(lr.end(), {"--lr", "0.1"});
  expect_refused(run_job({logreg, lr}), "--lr is 0.1 on rank 1, 0.5 on rank 0");
}
