// tests/apps/mf/gyre_mf_checkpoint_test.cpp — gyre-mf --checkpoint/--resume: a run killed (kill -9) mid-job and resumed ends bitwise as one never stopped, in one process and across 3.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "gyre_mf_run.hpp"
#include "support/checkpoint_runs.hpp"

using namespace gyre::test;

namespace {

// gyre-mf on dir's planted ratings for 6 epochs, one thread per worker, with `extra` flags.
std::vector<std::string> mf_argv(const TempDir& dir, std::vector<std::string> extra) {
  std::vector<std::string> argv{gyre_mf(), "--train", (dir / "train.tsv").string(), "--test", (dir / "test.tsv").string(),
                                "--epochs", "6", "--threads", "1"};  // T is part of the bits
  if (std::find(extra.begin(), extra.end(), "--rank") == extra.end()) argv.insert(argv.end(), {"--rank", "4"});
  argv.insert(argv.end(), extra.begin(), extra.end());
  return argv;
}

CommandResult run_mf(const TempDir& dir, std::vector<std::string> extra) {
  return run_command(mf_argv(dir, std::move(extra)));
}

void expect_same_mf_model(const std::filesystem::path& a, const std::filesystem::path& b) {
  expect_same_files(whole_model(gyre_mf(), a), whole_model(gyre_mf(), b), {"model.json", "user_factors.tsv", "item_factors.tsv", "user_adagrad.tsv", "item_adagrad.tsv"});
}

// A one-process run with checkpoints after every epoch that kills itself (SIGKILL) once epoch 4
// is reported: epochs 2 and 3 are whole, epoch 4's parts are written but its manifest is not
// (it is written once epoch 5 starts), so it is torn.
void run_mf_killed(const TempDir& dir, const std::string& checkpoints, std::vector<std::string> extra = {}) {
  extra.insert(extra.end(), {"--workers", "2", "--checkpoint", (dir / checkpoints).string(), "--out",
                             (dir / "never").string(), "--inject-kill-after-epoch", "4", "--quiet"});
  const auto r = run_mf(dir, extra);
  REQUIRE_MESSAGE(r.exit_code == 128 + 9, r.output);
  CHECK_FALSE(std::filesystem::exists(dir / "never"));
  CHECK(std::filesystem::exists(dir / checkpoints / "epoch-3" / "manifest"));
  CHECK(std::filesystem::exists(dir / checkpoints / "epoch-4" / "rank-1.part"));
  CHECK_FALSE(std::filesystem::exists(dir / checkpoints / "epoch-4" / "manifest"));
}

}  // namespace

TEST_CASE("one process: killed after epoch 4, resumed from epoch 3 (epoch 4 torn), bitwise the uninterrupted run") {
  TempDir dir;
  generate_mf_ratings(dir, 7);
  const auto straight = run_mf(dir, {"--workers", "2", "--out", (dir / "straight").string(), "--quiet"});
  REQUIRE_MESSAGE(straight.exit_code == 0, straight.output);
  run_mf_killed(dir, "ck");

  const auto resumed = run_mf(dir, {"--workers", "2", "--resume", (dir / "ck").string(), "--out", (dir / "resumed").string(),
                                    "--metrics", (dir / "m.jsonl").string()});
  REQUIRE_MESSAGE(resumed.exit_code == 0, resumed.output);
  INFO(resumed.output);
  CHECK(resumed.output.find("epoch-4/manifest") != std::string::npos);  // the torn one, named and passed over
  CHECK(resumed.output.find("resuming after epoch 3") != std::string::npos);
  expect_same_mf_model(dir / "straight", dir / "resumed");
  // The resumed run reports epochs 4 to 6 and goes on checkpointing (--keep 2: epochs 4 and 5).
  const auto metrics = read_text(dir / "m.jsonl");
  CHECK(metrics.rfind("{\"epoch\":4", 0) == 0);
  CHECK(std::count(metrics.begin(), metrics.end(), '\n') == 3);
  CHECK(std::filesystem::exists(dir / "ck" / "epoch-5" / "manifest"));
  CHECK(std::filesystem::exists(dir / "ck" / "epoch-4" / "manifest"));
  CHECK_FALSE(std::filesystem::exists(dir / "ck" / "epoch-3"));
  CHECK_FALSE(std::filesystem::exists(dir / "ck" / "epoch-6"));  // the last epoch's model is the output

  // Plain SGD with biases continues bitwise too (other row layout, no AdaGrad sums), and with
  // evaluations every other epoch (each moves the blocks): the resumed run evaluates after
  // epoch 4 as the uninterrupted one does.
  const std::vector<std::string> sgd{"--update", "sgd", "--biases", "--eval-every", "2"};
  auto argv = sgd;
  argv.insert(argv.end(), {"--workers", "2", "--out", (dir / "straight-sgd").string(), "--quiet"});
  REQUIRE(run_mf(dir, argv).exit_code == 0);
  run_mf_killed(dir, "ck-sgd", sgd);
  argv = sgd;
  argv.insert(argv.end(), {"--workers", "2", "--resume", (dir / "ck-sgd").string(), "--out", (dir / "resumed-sgd").string()});
  const auto r = run_mf(dir, argv);
  REQUIRE_MESSAGE(r.exit_code == 0, r.output);
  expect_same_files(dir / "straight-sgd", dir / "resumed-sgd", {"model.json", "user_factors.tsv", "item_factors.tsv"});
}

TEST_CASE("biases chosen from the data: killed after epoch 4, resumed from epoch 3 with them, bitwise") {
  TempDir dir;
  generate_mf_ratings(dir, 7);
  for (const char* name : {"train.tsv", "test.tsv"}) gyre::test::shift_by_item(dir, name);
  const auto straight = run_mf(dir, {"--workers", "2", "--out", (dir / "straight").string(), "--quiet"});
  REQUIRE_MESSAGE(straight.exit_code == 0, straight.output);
  CHECK(nlohmann::json::parse(read_text(dir / "straight" / "model.json")).at("biases") == true);
  run_mf_killed(dir, "ck");
  // The resume goes on with the checkpoint's biases (recorded in its state; here the data would
  // choose the same again), not with none: the model files are the uninterrupted run's.
  const auto resumed = run_mf(dir, {"--workers", "2", "--resume", (dir / "ck").string(), "--out", (dir / "resumed").string()});
  REQUIRE_MESSAGE(resumed.exit_code == 0, resumed.output);
  CHECK(resumed.output.find("resuming after epoch 3") != std::string::npos);
  expect_same_mf_model(dir / "straight", dir / "resumed");
}

TEST_CASE("the allreduce model (C): killed after epoch 4, resumed from epoch 3, bitwise the uninterrupted run") {
  TempDir dir;
  generate_mf_ratings(dir, 12);
  const std::vector<std::string> allreduce{"--model", "allreduce"};
  auto argv = allreduce;
  argv.insert(argv.end(), {"--workers", "2", "--out", (dir / "straight").string(), "--quiet"});
  REQUIRE(run_mf(dir, argv).exit_code == 0);
  run_mf_killed(dir, "ck", allreduce);
  argv = allreduce;
  argv.insert(argv.end(), {"--workers", "2", "--resume", (dir / "ck").string(), "--out", (dir / "resumed").string()});
  const auto r = run_mf(dir, argv);
  REQUIRE_MESSAGE(r.exit_code == 0, r.output);
  CHECK(r.output.find("resuming after epoch 3") != std::string::npos);
  expect_same_mf_model(dir / "straight", dir / "resumed");
}

TEST_CASE("3 processes over tcp: rank 1 killed with kill -9 mid-job, all 3 resumed, bitwise --workers 3 in one process") {
  TempDir dir;
  generate_mf_ratings(dir, 8);
  const auto straight = run_mf(dir, {"--workers", "3", "--out", (dir / "straight").string(), "--quiet"});
  REQUIRE_MESSAGE(straight.exit_code == 0, straight.output);

  // Every message delayed 10 ms, so that an epoch takes long enough for the kill to land inside
  // the job: rank 1 is killed once rank 0 has reported epoch 3 (whose checkpoint is made whole
  // as epoch 4 starts). From epoch 3, or a later one if the kill came late; never from scratch.
  const int from = kill_rank_1_and_resume(
      dir, mf_argv(dir, {"--checkpoint", (dir / "ck").string(), "--out", (dir / "never").string()}),
      mf_argv(dir, {"--resume", (dir / "ck").string(), "--out", (dir / "resumed").string()}), "epoch   3");
  CHECK(from >= 3);
  CHECK(from <= 5);
  expect_same_mf_model(dir / "straight", dir / "resumed");
}

TEST_CASE("a damaged newest checkpoint (flipped byte, missing rank file, missing manifest) is named and the previous one used") {
  TempDir dir;
  generate_mf_ratings(dir, 9);
  const auto straight = run_mf(dir, {"--workers", "2", "--out", (dir / "straight").string(), "--quiet"});
  REQUIRE_MESSAGE(straight.exit_code == 0, straight.output);
  run_mf_killed(dir, "ck", {"--keep", "3"});  // whole: epochs 1, 2, 3; torn: 4
  const auto resume = [&](const std::string& out) {
    return run_mf(dir, {"--workers", "2", "--resume", (dir / "ck").string(), "--out", (dir / out).string(), "--quiet"});
  };
  SUBCASE("a flipped byte in a part") {
    flip_byte(dir / "ck" / "epoch-3" / "rank-1.part", 100);
    const auto r = resume("resumed");
    REQUIRE_MESSAGE(r.exit_code == 0, r.output);
    CHECK(r.output.find("epoch-3/rank-1.part") != std::string::npos);
    CHECK(r.output.find("crc32c") != std::string::npos);
  }
  SUBCASE("a missing rank file") {
    std::filesystem::remove(dir / "ck" / "epoch-3" / "rank-0.part");
    const auto r = resume("resumed");
    REQUIRE_MESSAGE(r.exit_code == 0, r.output);
    CHECK(r.output.find("epoch-3/rank-0.part") != std::string::npos);
  }
  SUBCASE("a missing manifest, and then nothing sound at all") {
    std::filesystem::remove(dir / "ck" / "epoch-3" / "manifest");
    const auto r = resume("resumed");
    REQUIRE_MESSAGE(r.exit_code == 0, r.output);
    CHECK(r.output.find("epoch-3/manifest") != std::string::npos);
    for (const char* e : {"epoch-1", "epoch-2", "epoch-3", "epoch-4", "epoch-5"}) std::filesystem::remove_all(dir / "ck" / e);
    const auto none = resume("none");
    CHECK(none.exit_code == 2);
    CHECK(none.output.find("whole checkpoint") != std::string::npos);
    CHECK_FALSE(std::filesystem::exists(dir / "none"));
    return;
  }
  expect_same_mf_model(dir / "straight", dir / "resumed");  // from epoch 2, still the same bits
}

TEST_CASE("a resume with other flags or data is refused naming what differs; a fresh run will not overwrite checkpoints") {
  TempDir dir;
  generate_mf_ratings(dir, 10);
  run_mf_killed(dir, "ck");
  const auto ck = (dir / "ck").string();
  struct Case {
    std::vector<std::string> flags;
    std::string named;
  };
  const Case cases[] = {
      {{"--workers", "2", "--rank", "5"}, "--rank is 4 on the checkpoint, 5 on this run"},
      {{"--workers", "2", "--lambda", "0.1"}, "--lambda"},
      {{"--workers", "3"}, "--workers"},
      {{"--workers", "2", "--update", "sgd"}, "--update"},
  };
  for (const auto& c : cases) {
    auto flags = c.flags;
    flags.insert(flags.end(), {"--resume", ck, "--out", (dir / "out").string()});
    std::vector<std::string> argv{gyre_mf(), "--train", (dir / "train.tsv").string(), "--test", (dir / "test.tsv").string(),
                                  "--epochs", "6"};
    if (std::find(flags.begin(), flags.end(), "--rank") == flags.end()) argv.insert(argv.end(), {"--rank", "4"});
    argv.insert(argv.end(), flags.begin(), flags.end());
    expect_resume_refused(run_command(argv), c.named, "epoch-3/manifest", dir / "out");
  }
  // Other data: another training file.
  generate_mf_ratings(dir, 11);
  const auto other = run_mf(dir, {"--workers", "2", "--resume", ck, "--out", (dir / "out").string()});
  CHECK(other.exit_code == 2);
  CHECK(other.output.find("input --train") != std::string::npos);

  // A fresh run into a directory of checkpoints would bury them: refused.
  const auto fresh = run_mf(dir, {"--workers", "2", "--checkpoint", ck, "--out", (dir / "out").string()});
  CHECK(fresh.exit_code == 2);
  CHECK(fresh.output.find("--resume it") != std::string::npos);
  CHECK(std::filesystem::exists(dir / "ck" / "epoch-3" / "manifest"));
  // Locking and no-sync depend on timing: no checkpoints, said rather than ignored.
  const auto other_model = run_mf(dir, {"--model", "locking", "--checkpoint", (dir / "ck2").string()});
  CHECK(other_model.exit_code == 2);
  CHECK(other_model.output.find("depend on timing") != std::string::npos);
}

TEST_CASE("under held-out rate cuts, rotation and allreduce: killed after epoch 4, resumed from epoch 3, bitwise") {
  // Noisy ratings that rank 32 without regularisation overfits: the held-out RMSE rises by epoch
  // 3, so the resumed run must take the cut rate and the last held-out RMSE from the manifest.
  TempDir dir;
  generate_mf_ratings(dir, 7, "1");
  const std::vector<std::vector<std::string>> cases{
      {"--rank", "32", "--lambda", "0", "--lr", "0.3", "--lr-decay", "1", "--lr-warmup", "0.333", "--lr-cut", "0.3", "--held-out", "0.05"},
      {"--model", "allreduce", "--rank", "32", "--lambda", "0", "--lr", "0.4", "--lr-decay", "1", "--lr-warmup", "0.25", "--lr-cut",
       "0.3", "--held-out", "0.05"}};
  for (std::size_t k = 0; k < cases.size(); ++k) {
    const auto& flags = cases[k];
    const std::string tag = std::to_string(k);
    INFO(tag);
    auto argv = flags;
    argv.insert(argv.end(), {"--workers", "2", "--out", (dir / ("straight" + tag)).string(), "--quiet"});
    const auto straight = run_mf(dir, argv);
    REQUIRE_MESSAGE(straight.exit_code == 0, straight.output);
    run_mf_killed(dir, "ck" + tag, flags);
    const auto manifest = read_text(dir / ("ck" + tag) / "epoch-3" / "manifest");
    const auto at = manifest.find("rate_scale");
    REQUIRE(at != std::string::npos);
    CHECK(std::stod(manifest.substr(manifest.find(':', at) + 1)) < 1);  // a cut by epoch 3
    argv = flags;
    argv.insert(argv.end(), {"--workers", "2", "--resume", (dir / ("ck" + tag)).string(), "--out", (dir / ("resumed" + tag)).string()});
    const auto r = run_mf(dir, argv);
    REQUIRE_MESSAGE(r.exit_code == 0, r.output);
    CHECK(r.output.find("resuming after epoch 3") != std::string::npos);
    expect_same_mf_model(dir / ("straight" + tag), dir / ("resumed" + tag));
  }
}

TEST_CASE("CCD++ (2·rank·inner phases an epoch): killed after epoch 4, resumed from epoch 3, bitwise the uninterrupted run") {
  // A checkpoint is taken only where an epoch's last phase ends (users' entries of the last
  // column set), and a resume takes the residuals afresh from the factors, as each epoch does.
  TempDir dir;
  generate_mf_ratings(dir, 8);
  const std::vector<std::string> ccd{"--update", "ccd", "--ccd-inner", "2", "--eval-every", "2"};
  auto argv = ccd;
  argv.insert(argv.end(), {"--workers", "2", "--out", (dir / "straight").string(), "--quiet"});
  const auto straight = run_mf(dir, argv);
  REQUIRE_MESSAGE(straight.exit_code == 0, straight.output);
  run_mf_killed(dir, "ck", ccd);
  argv = ccd;
  argv.insert(argv.end(), {"--workers", "2", "--resume", (dir / "ck").string(), "--out", (dir / "resumed").string()});
  const auto r = run_mf(dir, argv);
  REQUIRE_MESSAGE(r.exit_code == 0, r.output);
  CHECK(r.output.find("resuming after epoch 3") != std::string::npos);
  expect_same_files(dir / "straight", dir / "resumed", {"model.json", "user_factors.tsv", "item_factors.tsv"});
  // 6 epochs of 2·4·2 training phases, evaluations after epochs 2, 4 and 6.
  CHECK(read_text(dir / "resumed" / "model.json").find("\"phases\": 99") != std::string::npos);
}
