// tests/apps/logreg/gyre_logreg_cli_test.cpp — gyre-logreg as a user runs it: progress, weights and metrics out; bad input refused.
#include <doctest/doctest.h>

#include <filesystem>

#include "support/cli_checks.hpp"
#include "support/input_errors.hpp"

using gyre::test::gyre_logreg;
using gyre::test::build_path;
using gyre::test::contains;
using gyre::test::json_lines;
using gyre::test::read_text;
using gyre::test::run_command;
using gyre::test::TempDir;
using gyre::test::write_text;

namespace {

void generate_regression(const TempDir& dir) {
  const auto r = run_command({build_path("tools/gyre-gen").string(), "regression", "--samples", "3000", "--features", "100",
                              "--nnz-per-row", "10", "--support", "10", "--correlation", "0.1", "--noise", "0.2",
                              "--seed", "1", "--out", (dir / "gen").string()});
  REQUIRE(r.exit_code == 0);
}

}  // namespace

TEST_CASE("gyre-logreg: evaluations as it goes, a summary, weights and metrics written") {
  TempDir dir;
  generate_regression(dir);
  const auto r = run_command({gyre_logreg(), "--data", (dir / "gen/data.libsvm").string(), "-p", "3", "--barrier", "ssp:2",
                              "--steps", "120", "--eval-every", "40", "--step-delay", "uniform:0:1", "--transport", "tcp",
                              "--out", (dir / "w.tsv").string(), "--metrics", (dir / "m.jsonl").string()});
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  CHECK(contains(r.output, "3000 samples, 100 features; 3 workers, 1 servers, barrier ssp:2, tcp"));
  CHECK(contains(r.output, "step      0"));
  CHECK(contains(r.output, "worker steps: median 120, 5th 120, 95th 120"));
  const auto metrics = json_lines(read_text(dir / "m.jsonl"));
  REQUIRE(metrics.size() == 3);
  CHECK(metrics[2]["step"] == 80);
  CHECK(metrics[2]["barrier"] == "ssp:2");
  CHECK(metrics[2]["loss"].get<double>() < metrics[0]["loss"].get<double>());
  const auto weights = read_text(dir / "w.tsv");
  CHECK(weights.rfind("feature\tname\tweight\n0\t(bias)\t", 0) == 0);
  CHECK(std::count(weights.begin(), weights.end(), '\n') == 102);
}

TEST_CASE("gyre-logreg --sampling per-check (the default) and per-step: pBSP runs every worker's steps; a per-step run says so") {
  TempDir dir;
  generate_regression(dir);
  for (const char* transport : {"inproc", "tcp"}) {
    CAPTURE(transport);
    const auto r = run_command({gyre_logreg(), "--data", (dir / "gen/data.libsvm").string(), "-p", "4", "--barrier", "pbsp:1",
                                "--sampling", "per-check", "--steps", "60", "--eval-every", "60", "--step-delay",
                                "uniform:0:2", "--transport", transport});
    INFO(r.output);
    REQUIRE(r.exit_code == 0);
    CHECK(contains(r.output, "4 workers, 1 servers, barrier pbsp:1, " + std::string(transport)));  // the default: not named
    CHECK(contains(r.output, "worker steps: median 60, 5th 60, 95th 60"));
    const auto step = run_command({gyre_logreg(), "--data", (dir / "gen/data.libsvm").string(), "-p", "4", "--barrier", "pbsp:1",
                                   "--sampling", "per-step", "--steps", "60", "--eval-every", "60", "--step-delay",
                                   "uniform:0:2", "--transport", transport});
    INFO(step.output);
    REQUIRE(step.exit_code == 0);
    CHECK(contains(step.output, "4 workers, 1 servers, barrier pbsp:1 (per-step sampling), " + std::string(transport)));
    CHECK(contains(step.output, "worker steps: median 60, 5th 60, 95th 60"));
  }
  const auto bad = run_command({gyre_logreg(), "--data", (dir / "gen/data.libsvm").string(), "--sampling", "often", "--out",
                                 (dir / "w.tsv").string()});
  CHECK(bad.exit_code == 2);
  CHECK(contains(bad.output, "--sampling: often not in {per-step,per-check}"));
  CHECK_FALSE(std::filesystem::exists(dir / "w.tsv"));
}

TEST_CASE("gyre-logreg: bad input and bad settings are refused, nothing written") {
  TempDir dir;
  write_text(dir / "bad.libsvm", "1 1:0.5 2:1\n0 3:x\n");
  const auto out = (dir / "w.tsv").string();
  gyre::test::expect_refused("gyre-logreg", {gyre_logreg(), "--data", (dir / "bad.libsvm").string(), "--out", out}, dir,
                             "bad.libsvm:2", "x");
  write_text(dir / "ok.libsvm", "1 1:0.5\n0 2:1\n");
  gyre::test::expect_refused("gyre-logreg", {gyre_logreg(), "--data", (dir / "ok.libsvm").string(), "--barrier", "ssp", "--out", out},
                             dir, "barrier 'ssp'", "expected bsp");
  gyre::test::expect_refused("gyre-logreg",
                             {gyre_logreg(), "--data", (dir / "ok.libsvm").string(), "--step-delay", "gamma:1", "--out", out}, dir,
                             "gamma:1", "expected");
}
