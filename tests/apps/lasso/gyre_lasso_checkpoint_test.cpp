// tests/apps/lasso/gyre_lasso_checkpoint_test.cpp — gyre-lasso --checkpoint/--resume: a run killed (kill -9) mid-path and resumed writes the coefficients of one never stopped, bitwise, in one process and across 3.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "support/checkpoint_runs.hpp"
#include "support/run_command.hpp"
#include "support/temp_dir.hpp"

using namespace gyre::test;

namespace {

void generate_named_regression(const TempDir& dir, const std::string& name, const std::string& seed) {
  const auto r = run_command({build_path("tools/gyre-gen").string(), "regression", "--samples", "1200", "--features", "300",
                              "--nnz-per-row", "20", "--support", "10", "--correlation", "0.5", "--noise", "0.1", "--seed",
                              seed, "--out", (dir / name).string()});
  REQUIRE_MESSAGE(r.exit_code == 0, r.output);
}

// The data's responses made two classes (y > 0 is class 1), for the logistic loss.
void to_classes(const TempDir& dir) {
  const auto file = dir / "data" / "data.libsvm";
  std::istringstream in(read_text(file));
  std::ostringstream out;
  for (std::string line; std::getline(in, line);) {
    const auto space = line.find(' ');
    out << (std::stod(line.substr(0, space)) > 0 ? "1" : "0") << line.substr(space) << '\n';
  }
  std::ofstream(file) << out.str();
}

// A path of 5 λs on the rounds (priority schedule, 3 rounds in flight), one thread per worker
// (T is part of the bits), with `extra` flags.
std::vector<std::string> lasso_argv(const TempDir& dir, std::vector<std::string> extra) {
  std::vector<std::string> argv{gyre_lasso(), "--data", (dir / "data").string(), "--path", "5", "--lambda-ratio", "0.02",
                                "--batch", "16", "--depth", "3", "--threads", "1", "--tol", "1e-10"};
  argv.insert(argv.end(), extra.begin(), extra.end());
  return argv;
}

CommandResult run_lasso(const TempDir& dir, std::vector<std::string> extra) {
  return run_command(lasso_argv(dir, std::move(extra)));
}

// A one-process run with a checkpoint after every check that kills itself (SIGKILL) once check
// 6 is reported, before its checkpoint: checkpoint 5 and the one before it are whole (--keep 2;
// the two checks that end one λ and start the next are one checkpoint).
void run_lasso_killed(const TempDir& dir, const std::string& checkpoints, std::vector<std::string> extra) {
  extra.insert(extra.end(), {"--checkpoint", (dir / checkpoints).string(), "--out", (dir / "never.tsv").string(),
                             "--inject-kill-after-epoch", "6", "--quiet"});
  const auto r = run_lasso(dir, extra);
  REQUIRE_MESSAGE(r.exit_code == 128 + 9, r.output);
  CHECK_FALSE(std::filesystem::exists(dir / "never.tsv"));
  CHECK(std::filesystem::exists(dir / checkpoints / "epoch-5" / "manifest"));
  CHECK_FALSE(std::filesystem::exists(dir / checkpoints / "epoch-6"));
  // The checkpoints kept (the directory also holds the run's lock, .gyre-lock).
  int kept = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir / checkpoints))
    kept += entry.path().filename().string().rfind("epoch-", 0) == 0 ? 1 : 0;
  CHECK(kept == 2);
}

// The uninterrupted run, the killed one and its resumption with `flags`: the same coefficients.
void expect_resumed_bitwise(const TempDir& dir, const std::string& name, const std::vector<std::string>& flags) {
  auto argv = flags;
  argv.insert(argv.end(), {"--out", (dir / (name + "-straight.tsv")).string(), "--quiet"});
  const auto straight = run_lasso(dir, argv);
  REQUIRE_MESSAGE(straight.exit_code == 0, straight.output);
  run_lasso_killed(dir, name, flags);
  argv = flags;
  argv.insert(argv.end(), {"--resume", (dir / name).string(), "--out", (dir / (name + "-resumed.tsv")).string()});
  const auto resumed = run_lasso(dir, argv);
  REQUIRE_MESSAGE(resumed.exit_code == 0, resumed.output);
  INFO(resumed.output);
  CHECK(resumed.output.find("resuming after check 5") != std::string::npos);
  CHECK(read_text(dir / (name + "-straight.tsv")) == read_text(dir / (name + "-resumed.tsv")));
  CHECK_FALSE(std::filesystem::exists(dir / name / "epoch-4"));  // it went on checkpointing (--keep 2)
}

}  // namespace

TEST_CASE("gyre-lasso, one process: killed after check 6, resumed from check 5, bitwise the uninterrupted run (both losses)") {
  TempDir dir;
  generate_named_regression(dir, "data", "8");
  SUBCASE("rounds of 2 workers, priority schedule") { expect_resumed_bitwise(dir, "rounds", {"--workers", "2"}); }
  SUBCASE("one worker's active-set cycles") { expect_resumed_bitwise(dir, "cycles", {"--workers", "1"}); }
  SUBCASE("rounds of one worker, random schedule, elastic net") {
    expect_resumed_bitwise(dir, "random", {"--workers", "1", "--no-cycles", "--schedule", "random", "--alpha", "0.7"});
  }
  SUBCASE("logistic loss: rounds of 2 workers, and one worker's cycles") {
    to_classes(dir);
    expect_resumed_bitwise(dir, "logistic-rounds", {"--loss", "logistic", "--workers", "2"});
    expect_resumed_bitwise(dir, "logistic-cycles", {"--loss", "logistic", "--workers", "1"});
  }
}

TEST_CASE("gyre-lasso, 3 processes over tcp: rank 1 killed with kill -9 mid-path, all 3 resumed, bitwise --workers 3 in one process") {
  TempDir dir;
  generate_named_regression(dir, "data", "8");
  const auto straight = run_lasso(dir, {"--workers", "3", "--out", (dir / "straight.tsv").string(), "--quiet"});
  REQUIRE_MESSAGE(straight.exit_code == 0, straight.output);

  // Every message delayed 5 ms, so that the path takes long enough for the kill to land inside
  // it: rank 1 is killed once rank 0 has reported the first check of the third λ (checks
  // go to rank 0's stderr as JSON lines). Ranks 0 and 2 stop with an error naming rank 1.
  std::string command;
  for (const auto& a : lasso_argv(dir, {"--checkpoint", (dir / "ck").string(), "--out", (dir / "never.tsv").string(),
                                        "--metrics", "/dev/stderr", "--inject-delay", "fixed:5"}))
    command += "'" + a + "' ";
  const auto killed = disturb_rank_1(dir, command, "kill -9", "\"lambda_index\":2");
  expect_survivors_stopped(dir, killed, 30000);
  CHECK_FALSE(std::filesystem::exists(dir / "never.tsv"));

  const auto resumed =
      run_ranks(lasso_argv(dir, {"--resume", (dir / "ck").string(), "--out", (dir / "resumed.tsv").string()}), 3);
  for (const auto& r : resumed) CHECK_MESSAGE(r.exit_code == 0, r.output);
  INFO(resumed[0].output);
  const auto at = resumed[0].output.find("resuming after check ");
  REQUIRE(at != std::string::npos);  // never from scratch
  CHECK(std::stoi(resumed[0].output.substr(at + 21)) >= 2);
  CHECK(read_text(dir / "straight.tsv") == read_text(dir / "resumed.tsv"));
}

TEST_CASE("gyre-lasso: a resume with other flags or data is refused naming what differs; a damaged checkpoint is passed over") {
  TempDir dir;
  generate_named_regression(dir, "data", "8");
  run_lasso_killed(dir, "ck", {"--workers", "2"});
  const auto ck = (dir / "ck").string();
  // Each refused with exit 2, naming the manifest and what differs, and writing nothing.
  const auto refused = [&](std::vector<std::string> flags, const std::string& named) {
    flags.insert(flags.end(), {"--resume", ck, "--out", (dir / "out.tsv").string()});
    expect_resume_refused(run_lasso(dir, flags), named, "epoch-5/manifest", dir / "out.tsv");
  };
  refused({"--workers", "2", "--rho", "0.2"}, "--rho is 0.1 on the checkpoint, 0.2 on this run");
  refused({"--workers", "2", "--alpha", "0.5"}, "--alpha");
  refused({"--workers", "3"}, "--workers is 2 on the checkpoint, 3 on this run");
  refused({"--workers", "2", "--schedule", "cyclic"}, "--schedule");
  // Other data under the same name.
  std::filesystem::rename(dir / "data", dir / "data-8");
  generate_named_regression(dir, "data", "9");
  const auto other = run_lasso(dir, {"--workers", "2", "--resume", ck, "--out", (dir / "out.tsv").string()});
  CHECK(other.exit_code == 2);
  CHECK_MESSAGE(other.output.find("input --data") != std::string::npos, other.output);
  std::filesystem::remove_all(dir / "data");
  std::filesystem::rename(dir / "data-8", dir / "data");

  // A flipped byte in the newest checkpoint's scheduler part: named, and the one before used,
  // which ends bitwise where the uninterrupted run does.
  flip_byte(dir / "ck" / "epoch-5" / "rank-2.part", 40);
  const auto resumed = run_lasso(dir, {"--workers", "2", "--resume", ck, "--out", (dir / "resumed.tsv").string()});
  REQUIRE_MESSAGE(resumed.exit_code == 0, resumed.output);
  CHECK_MESSAGE(resumed.output.find("epoch-5/rank-2.part") != std::string::npos, resumed.output);
  CHECK(resumed.output.find("resuming after check 4") != std::string::npos);
  const auto straight = run_lasso(dir, {"--workers", "2", "--out", (dir / "straight.tsv").string(), "--quiet"});
  REQUIRE(straight.exit_code == 0);
  CHECK(read_text(dir / "straight.tsv") == read_text(dir / "resumed.tsv"));

  // A fresh run into a directory of checkpoints is refused.
  const auto fresh = run_lasso(dir, {"--workers", "2", "--checkpoint", ck});
  CHECK(fresh.exit_code == 2);
  CHECK(fresh.output.find("--resume it") != std::string::npos);
}
