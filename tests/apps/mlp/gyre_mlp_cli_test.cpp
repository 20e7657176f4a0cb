// tests/apps/mlp/gyre_mlp_cli_test.cpp — gyre-mlp as a user runs it: progress, metrics with updates, a model out; bad input refused at file:line, exit 2.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "support/cli_checks.hpp"
#include "support/input_errors.hpp"
#include "support/multiprocess.hpp"

using gyre::test::gyre_mlp;
using gyre::test::build_path;
using gyre::test::contains;
using gyre::test::json_lines;
using gyre::test::read_text;
using gyre::test::run_command;
using gyre::test::run_ranks;
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

namespace {

// "worker steps: median M, 5th F, 95th N" → {M, F, N}.
std::vector<long> worker_steps(const std::string& output) {
  const auto at = output.find("worker steps: median ");
  REQUIRE_MESSAGE(at != std::string::npos, output);
  long median = 0, low = 0, high = 0;
  REQUIRE(std::sscanf(output.c_str() + at, "worker steps: median %ld, 5th %ld, 95th %ld", &median, &low, &high) == 3);
  return {median, low, high};
}

}  // namespace

TEST_CASE("gyre-mlp --engine average: a replica per worker, averaged in the background; the fast workers do not wait "
          "for a straggler, in one process and across three") {
  TempDir dir;
  write_text(dir / "train.csv", planted_csv(300));
  // Worker 2 pauses 10 ms a step, the others 1 ms; 1.5 s of training.
  const std::vector<std::string> common{gyre_mlp(), "--train", (dir / "train.csv").string(), "--classes", "3", "--hidden", "5",
                                        "--engine", "average", "--steps", "1000000", "--seconds", "1.5", "--eval-every",
                                        "100000", "--step-delay", "fixed:1", "--slow-workers", "2", "--slow-factor", "10"};
  auto one = common;
  one.insert(one.end(), {"-p", "3"});
  const auto r = run_command(one);
  REQUIRE_MESSAGE(r.exit_code == 0, r.output);
  CHECK(contains(r.output, "3 workers, model averaging, inproc"));
  CHECK(contains(r.output, "held at the barrier 0% of worker time"));
  const auto steps = worker_steps(r.output);
  CHECK_MESSAGE(steps[0] > 3 * steps[1], r.output);  // the fast workers' steps against the straggler's
  CHECK(contains(r.output, "accuracy 1.0000 after"));
  // The same under BSP on the parameter server: everyone at the straggler's pace.
  auto bsp = one;
  bsp[std::find(bsp.begin(), bsp.end(), "average") - bsp.begin()] = "ps";
  const auto held = run_command(bsp);
  REQUIRE_MESSAGE(held.exit_code == 0, held.output);
  const auto bsp_steps = worker_steps(held.output);
  CHECK_MESSAGE(bsp_steps[0] == bsp_steps[1], held.output);
  CHECK_MESSAGE(steps[0] > 3 * bsp_steps[0], std::string(r.output + held.output));

  const auto ranks = run_ranks(common, 3);
  for (const auto& rank : ranks) CHECK_MESSAGE(rank.exit_code == 0, rank.output);
  CHECK_MESSAGE(contains(ranks[0].output, "3 workers, model averaging, processes over tcp"), ranks[0].output);
  const auto across = worker_steps(ranks[0].output);
  CHECK_MESSAGE(across[0] > 3 * across[1], ranks[0].output);
  CHECK_MESSAGE(contains(ranks[0].output, "accuracy 1.0000 after"), ranks[0].output);
  CHECK_MESSAGE(ranks[1].output.empty(), ranks[1].output);
}

TEST_CASE("gyre-mlp --staleness: each layer a table of its own rule; the steps at the loosest; both engines, and bad lists refused") {
  TempDir dir;
  write_text(dir / "train.csv", planted_csv(300));
  for (const char* engine : {"ps", "p2p"}) {
    CAPTURE(engine);
    const auto r = run_command({gyre_mlp(), "--train", (dir / "train.csv").string(), "--classes", "3", "--hidden", "5", "-p",
                                "3", "--engine", engine, "--staleness", "0,3", "--steps", "60", "--eval-every", "30",
                                "--step-delay", "uniform:0:1", "--slow-workers", "2", "--metrics", (dir / "m.jsonl").string()});
    INFO(r.output);
    REQUIRE(r.exit_code == 0);
    CHECK(contains(r.output, "barrier ssp:3, inproc, reads per layer bsp,ssp:3"));
    CHECK(contains(r.output, "after 180 updates"));
    const auto metrics = json_lines(read_text(dir / "m.jsonl"));
    CHECK(metrics.back()["barrier"] == "ssp:3, layers bsp,ssp:3");
    CHECK(metrics.back()["accuracy"].get<double>() > 0.9);
  }
  // An explicit --barrier paces the steps instead of the loosest layer's rule.
  const auto paced = run_command({gyre_mlp(), "--train", (dir / "train.csv").string(), "--classes", "3", "--hidden", "5", "-p",
                                  "2", "--staleness", "2,0", "--barrier", "asp", "--steps", "20", "--quiet"});
  CHECK_MESSAGE(contains(paced.output, "barrier asp, inproc, reads per layer ssp:2,bsp"), paced.output);
  const auto out = (dir / "never.txt").string();
  for (const char* list : {"1", "0,1,2", "0,-1"}) {
    const auto bad = run_command({gyre_mlp(), "--train", (dir / "train.csv").string(), "--staleness", list, "--out", out});
    CHECK(bad.exit_code == 2);
    CHECK_MESSAGE(contains(bad.output, "--staleness"), bad.output);
    CHECK_FALSE(std::filesystem::exists(out));
  }
  gyre::test::expect_refused("gyre-mlp", {gyre_mlp(), "--train", (dir / "train.csv").string(), "--classes", "3", "--staleness",
                                          "0,1", "--engine", "average", "--out", out},
                             dir, "staleness per layer", "--engine ps or p2p");
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
