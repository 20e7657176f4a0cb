// tests/apps/logreg/gyre_logreg_checkpoint_test.cpp — gyre-logreg --checkpoint/--resume on the parameter server: a run killed mid-job and resumed ends bitwise as one never stopped, in one process and across 3.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "support/checkpoint_runs.hpp"
#include "support/run_command.hpp"
#include "support/temp_dir.hpp"

using namespace gyre::test;

namespace {

// 600 samples dealt to 3 workers, batches of 20: an epoch is 10 steps, 6 epochs 60 steps.
void generate_small_regression(const TempDir& dir) {
  const auto r = run_command({build_path("tools/gyre-gen").string(), "regression", "--samples", "600", "--features", "40",
                              "--nnz-per-row", "8", "--support", "8", "--correlation", "0.1", "--noise", "0.2",
                              "--seed", "4", "--out", (dir / "data").string()});
  REQUIRE_MESSAGE(r.exit_code == 0, r.output);
}

std::vector<std::string> logreg_argv(const TempDir& dir, std::vector<std::string> extra) {
  std::vector<std::string> argv{gyre_logreg(), "--data", (dir / "data/data.libsvm").string(), "--batch", "20", "--steps",
                                "60", "--eval-every", "5", "--decay", "0.01"};  // BSP, η 0.5: the defaults
  argv.insert(argv.end(), extra.begin(), extra.end());
  return argv;
}

CommandResult run_logreg(const TempDir& dir, std::vector<std::string> extra) {
  return run_command(logreg_argv(dir, std::move(extra)));
}

// One process, 3 workers, checkpoints after every epoch; it kills itself (SIGKILL) once epoch 4
// is reported, which is after epoch 4's checkpoint is whole (mid-epoch 5).
void run_logreg_killed(const TempDir& dir, const std::string& checkpoints) {
  const auto r = run_logreg(dir, {"--workers", "3", "--checkpoint", (dir / checkpoints).string(), "--out",
                                  (dir / "never.tsv").string(), "--inject-kill-after-epoch", "4", "--quiet"});
  REQUIRE_MESSAGE(r.exit_code == 128 + 9, r.output);
  CHECK_FALSE(std::filesystem::exists(dir / "never.tsv"));
  CHECK(std::filesystem::exists(dir / checkpoints / "epoch-4" / "manifest"));
  CHECK(std::filesystem::exists(dir / checkpoints / "epoch-3" / "manifest"));
  CHECK_FALSE(std::filesystem::exists(dir / checkpoints / "epoch-5"));
}

}  // namespace

TEST_CASE("one process, 3 workers under BSP: killed after epoch 4, resumed, bitwise the uninterrupted run") {
  TempDir dir;
  generate_small_regression(dir);
  const auto straight = run_logreg(dir, {"--workers", "3", "--out", (dir / "straight.tsv").string(), "--quiet"});
  REQUIRE_MESSAGE(straight.exit_code == 0, straight.output);
  // BSP folds every step's pushes in worker order: two runs agree bit for bit.
  const auto again = run_logreg(dir, {"--workers", "3", "--out", (dir / "again.tsv").string(), "--quiet"});
  REQUIRE_MESSAGE(again.exit_code == 0, again.output);
  CHECK(read_text(dir / "straight.tsv") == read_text(dir / "again.tsv"));

  run_logreg_killed(dir, "ck");
  const auto resumed = run_logreg(dir, {"--workers", "3", "--resume", (dir / "ck").string(), "--out",
                                        (dir / "resumed.tsv").string(), "--metrics", (dir / "m.jsonl").string()});
  REQUIRE_MESSAGE(resumed.exit_code == 0, resumed.output);
  INFO(resumed.output);
  CHECK(resumed.output.find("resuming after epoch 4 (step 40)") != std::string::npos);
  CHECK(resumed.output.find("worker steps: median 60") != std::string::npos);
  CHECK(read_text(dir / "straight.tsv") == read_text(dir / "resumed.tsv"));
  // It evaluates from step 40 on and goes on checkpointing (--keep 2: epochs 4 and 5; none after the last).
  CHECK(read_text(dir / "m.jsonl").find("\"step\":40") != std::string::npos);
  CHECK(read_text(dir / "m.jsonl").find("\"step\":35") == std::string::npos);
  CHECK(std::filesystem::exists(dir / "ck" / "epoch-5" / "manifest"));
  CHECK(std::filesystem::exists(dir / "ck" / "epoch-4" / "manifest"));
  CHECK_FALSE(std::filesystem::exists(dir / "ck" / "epoch-3"));
  CHECK_FALSE(std::filesystem::exists(dir / "ck" / "epoch-6"));

  // A damaged newest checkpoint is named and the one before it used: still the same bits.
  run_logreg_killed(dir, "ck2");
  flip_byte(dir / "ck2" / "epoch-4" / "rank-0.part", 100);
  const auto older = run_logreg(dir, {"--workers", "3", "--resume", (dir / "ck2").string(), "--out",
                                      (dir / "older.tsv").string(), "--quiet"});
  REQUIRE_MESSAGE(older.exit_code == 0, older.output);
  CHECK(older.output.find("epoch-4/rank-0.part") != std::string::npos);
  CHECK(older.output.find("resuming after epoch 3") != std::string::npos);
  CHECK(read_text(dir / "straight.tsv") == read_text(dir / "older.tsv"));
}

TEST_CASE("3 processes over tcp under BSP: rank 1 killed with kill -9 mid-job, all 3 resumed, bitwise --workers 3 in one process") {
  TempDir dir;
  generate_small_regression(dir);
  const auto straight = run_logreg(dir, {"--workers", "3", "--out", (dir / "straight.tsv").string(), "--quiet"});
  REQUIRE_MESSAGE(straight.exit_code == 0, straight.output);
  // 20 ms per step, so that the kill lands inside the job: once rank 0 has evaluated step 20
  // (epoch 1's checkpoint is whole by step 11). Ranks 0 and 2 stop with an error naming rank 1.
  const std::vector<std::string> delayed{"--step-delay", "fixed:20"};
  std::string command;
  auto argv = delayed;
  argv.insert(argv.end(), {"--checkpoint", (dir / "ck").string(), "--out", (dir / "never.tsv").string()});
  for (const auto& a : logreg_argv(dir, argv)) command += "'" + a + "' ";
  const auto killed = disturb_rank_1(dir, command, "kill -9", "step     20");
  expect_survivors_stopped(dir, killed, 30000);
  CHECK_FALSE(std::filesystem::exists(dir / "never.tsv"));
  argv = delayed;
  argv.insert(argv.end(), {"--resume", (dir / "ck").string(), "--out", (dir / "resumed.tsv").string()});
  const auto resumed = run_ranks(logreg_argv(dir, argv), 3);
  for (const auto& r : resumed) CHECK_MESSAGE(r.exit_code == 0, r.output);
  INFO(resumed[0].output);
  const auto at = resumed[0].output.find("resuming after epoch ");
  REQUIRE(at != std::string::npos);
  const int from = std::stoi(resumed[0].output.substr(at + 21));
  CHECK(from >= 1);
  CHECK(from <= 5);
  CHECK(read_text(dir / "straight.tsv") == read_text(dir / "resumed.tsv"));
}

TEST_CASE("gyre-logreg: a resume with other flags is refused naming them; p2p and asp take no checkpoints") {
  TempDir dir;
  generate_small_regression(dir);
  run_logreg_killed(dir, "ck");
  const auto ck = (dir / "ck").string();
  // Refused before anything is trained or written, naming the flag and the manifest.
  const auto expect_refused = [&](std::vector<std::string> flags, const std::string& named) {
    flags.insert(flags.end(), {"--resume", ck, "--out", (dir / "out.tsv").string()});
    expect_resume_refused(run_logreg(dir, flags), named, "epoch-4/manifest", dir / "out.tsv");
  };
  expect_refused({"--workers", "3", "--lr", "0.25"}, "--lr is 0.5 on the checkpoint, 0.25 on this run");
  expect_refused({"--workers", "3", "--l2", "0.01"}, "--l2");
  expect_refused({"--workers", "2"}, "--workers");
  // --steps may grow: the resumed run goes on to the new total.
  auto argv = logreg_argv(dir, {"--workers", "3", "--resume", ck, "--quiet"});
  *(std::find(argv.begin(), argv.end(), "--steps") + 1) = "70";
  const auto longer = run_command(argv);
  CHECK_MESSAGE(longer.exit_code == 0, longer.output);
  CHECK(longer.output.find("worker steps: median 70") != std::string::npos);
  const auto p2p = run_logreg(dir, {"--workers", "3", "--engine", "p2p", "--checkpoint", (dir / "ck-p2p").string()});
  CHECK(p2p.exit_code == 2);
  CHECK(p2p.output.find("parameter-server engine only") != std::string::npos);
  const auto asp = run_logreg(dir, {"--workers", "3", "--barrier", "asp", "--checkpoint", (dir / "ck-asp").string()});
  CHECK(asp.exit_code == 2);
  CHECK(asp.output.find("bsp or ssp") != std::string::npos);
}
