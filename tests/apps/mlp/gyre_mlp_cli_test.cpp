// tests/apps/mlp/gyre_mlp_cli_test.cpp — gyre-mlp as a user runs it: progress, metrics with updates, a model out; bad input refused at file:line, exit 2.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "support/cli_checks.hpp"
#include "support/input_errors.hpp"

using gyre::test::gyre_mlp;
using gyre::test::build_path;
using gyre::test::contains;
using gyre::test::json_lines;
using gyre::test::read_text;
using gyre::test::run_command;
using gyre::test::TempDir;
using gyre::test::write_text;

namespace {

// Three classes of 4 features, each a clear prototype with small variations.
std::string planted_csv(int samples) {
  std::string text;
  for (int i = 0; i < samples; ++i) {
    const int k = i % 3;
    text += std::to_string(k);
    for (int j = 0; j < 4; ++j) text += "," + std::to_string((j == k ? 10 : 1) + (i * 7 + j) % 3);
    text += '\n';
  }
  return text;
}

}  // namespace

TEST_CASE("gyre-mlp: evaluations as it goes, a summary, metrics with updates and the model written") {
  TempDir dir;
  write_text(dir / "train.csv", planted_csv(300));
  write_text(dir / "test.csv", planted_csv(60));
  const auto r = run_command({gyre_mlp(), "--train", (dir / "train.csv").string(), "--test", (dir / "test.csv").string(),
                              "--classes", "3", "--hidden", "5", "-p", "3", "--barrier", "pssp:1:2", "--steps", "90",
                              "--eval-every", "30", "--step-delay", "uniform:0:1", "--slow-workers", "2", "--transport",
                              "tcp", "--out", (dir / "m.txt").string(), "--metrics", (dir / "m.jsonl").string()});
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  CHECK(contains(r.output, "300 samples, 4 features, 3 classes, 5 hidden; 3 workers, 1 servers, barrier pssp:1:2, tcp"));
  CHECK(contains(r.output, "worker steps: median 90, 5th 90, 95th 90"));
  CHECK(contains(r.output, "after 270 updates"));
  const auto metrics = json_lines(read_text(dir / "m.jsonl"));
  REQUIRE(metrics.size() == 4);  // steps 0, 30, 60 and the final line
  CHECK(metrics[1]["step"] == 30);
  CHECK(metrics[1]["updates"].get<int>() >= 30);
  CHECK(metrics[3]["final"] == true);
  CHECK(metrics[3]["updates"] == 270);
  CHECK(metrics[3]["accuracy"].get<double>() > 0.9);
  const auto model = read_text(dir / "m.txt");
  CHECK(model.rfind("# gyre-mlp: inputs 4 hidden 5 classes 3", 0) == 0);
  CHECK(std::count(model.begin(), model.end(), '\n') == 1 + 4 * 5 + 5 + 5 * 3 + 3);
}

TEST_CASE("gyre-mlp: a wrong feature count, a bad label or a bad setting is refused with exit 2, nothing written") {
  TempDir dir;
  const auto out = (dir / "m.txt").string();
  write_text(dir / "ok.csv", "1,0,1,2,3\n0,4,5,6,7\n");
  write_text(dir / "short.csv", "1,0,1,2,3\n0,4,5,6\n");
  gyre::test::expect_refused("gyre-mlp", {gyre_mlp(), "--train", (dir / "short.csv").string(), "--out", out}, dir,
                             "short.csv:2", "5 fields (a label and 4 features)");
  gyre::test::expect_refused(
      "gyre-mlp", {gyre_mlp(), "--train", (dir / "ok.csv").string(), "--test", (dir / "short.csv").string(), "--out", out}, dir,
      "short.csv:2", "5 fields");
  write_text(dir / "label.csv", "1,0,1,2,3\n\n12,4,5,6,7\n");
  gyre::test::expect_refused("gyre-mlp", {gyre_mlp(), "--train", (dir / "label.csv").string(), "--out", out}, dir, "label.csv:3",
                             "class label in [0, 9]");
  write_text(dir / "value.csv", "1,0,1,x,3\n");
  gyre::test::expect_refused("gyre-mlp", {gyre_mlp(), "--train", (dir / "value.csv").string(), "--out", out}, dir, "value.csv:1",
                             "feature 3");
  gyre::test::expect_refused("gyre-mlp", {gyre_mlp(), "--train", (dir / "ok.csv").string(), "--slow-workers", "7", "-p", "2", "--out", out},
                             dir, "slow workers", "'7'");
  gyre::test::expect_refused("gyre-mlp", {gyre_mlp(), "--train", (dir / "ok.csv").string(), "--barrier", "ssp", "--out", out}, dir,
                             "barrier 'ssp'", "expected bsp");
}

TEST_CASE("gyre-mlp: --checkpoint and --resume as gyre-logreg's, killed after epoch 4 and resumed bitwise under BSP") {
  TempDir dir;
  write_text(dir / "train.csv", planted_csv(300));
  // 3 workers of 100 rows, batches of 16: an epoch is 7 steps, 6 epochs 42.
  const auto run = [&](std::vector<std::string> extra) {
    std::vector<std::string> argv{gyre_mlp(), "--train", (dir / "train.csv").string(), "--classes", "3", "--hidden", "5",
                                  "-p", "3", "--steps", "42", "--quiet"};
    argv.insert(argv.end(), extra.begin(), extra.end());
    return run_command(argv);
  };
  REQUIRE(run({"--out", (dir / "straight.txt").string()}).exit_code == 0);
  const auto killed = run({"--checkpoint", (dir / "ck").string(), "--inject-kill-after-epoch", "4"});
  REQUIRE_MESSAGE(killed.exit_code == 128 + 9, killed.output);
  const auto resumed = run({"--resume", (dir / "ck").string(), "--out", (dir / "resumed.txt").string()});
  INFO(resumed.output);
  REQUIRE(resumed.exit_code == 0);
  CHECK(contains(resumed.output, "resuming after epoch 4 (step 28)"));
  CHECK(read_text(dir / "straight.txt") == read_text(dir / "resumed.txt"));
}
