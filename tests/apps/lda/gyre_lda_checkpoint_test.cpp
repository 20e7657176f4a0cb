// tests/apps/lda/gyre_lda_checkpoint_test.cpp — gyre-lda --checkpoint/--resume: killed mid-job and resumed, the model is bitwise the uninterrupted run's, in one process and across 3.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "support/checkpoint_runs.hpp"

using namespace gyre::test;

namespace {

// 300 planted documents of 60 words over 500 words, in dir/corpus/docword.txt.
void generate_corpus(const TempDir& dir) {
  const auto r = run_command({build_path("tools/gyre-gen").string(), "corpus", "--docs", "300", "--vocab", "500", "--topics",
                              "5", "--doc-length", "60", "--seed", "3", "--out", (dir / "corpus").string()});
  REQUIRE_MESSAGE(r.exit_code == 0, r.output);
}

// gyre-lda on the corpus, K = 8, 6 sweeps, one thread per worker (T is part of the bits).
std::vector<std::string> lda_argv(const TempDir& dir, std::vector<std::string> extra) {
  std::vector<std::string> argv{gyre_lda(), "--corpus", (dir / "corpus").string(), "--topics", "8",
                                "--epochs", "6",        "--threads",              "1"};
  argv.insert(argv.end(), extra.begin(), extra.end());
  return argv;
}

void expect_same_lda_model(const std::filesystem::path& a, const std::filesystem::path& b) {
  expect_same_files(whole_model(gyre_lda(), a), whole_model(gyre_lda(), b), {"model.json", "word_topic.tsv", "doc_topic.tsv", "topics.txt"});
}

}  // namespace

TEST_CASE("one process: killed after sweep 4, resumed from sweep 3 (sweep 4 torn), bitwise the uninterrupted run") {
  TempDir dir;
  generate_corpus(dir);
  const auto straight = run_command(lda_argv(dir, {"--workers", "2", "--out", (dir / "straight").string(), "--quiet"}));
  REQUIRE_MESSAGE(straight.exit_code == 0, straight.output);
  const auto killed = run_command(lda_argv(dir, {"--workers", "2", "--checkpoint", (dir / "ck").string(), "--out",
                                                 (dir / "never").string(), "--inject-kill-after-epoch", "4", "--quiet"}));
  REQUIRE_MESSAGE(killed.exit_code == 128 + 9, killed.output);
  CHECK_FALSE(std::filesystem::exists(dir / "never"));

  const auto resumed = run_command(lda_argv(dir, {"--workers", "2", "--resume", (dir / "ck").string(), "--out",
                                                  (dir / "resumed").string(), "--metrics", (dir / "m.jsonl").string()}));
  REQUIRE_MESSAGE(resumed.exit_code == 0, resumed.output);
  INFO(resumed.output);
  CHECK(resumed.output.find("epoch-4/manifest") != std::string::npos);
  CHECK(resumed.output.find("resuming after epoch 3") != std::string::npos);
  CHECK(read_text(dir / "m.jsonl").rfind("{\"epoch\":4", 0) == 0);
  expect_same_lda_model(dir / "straight", dir / "resumed");

  // Another seed: refused, naming the flag and the manifest.
  const auto other = run_command(lda_argv(dir, {"--workers", "2", "--seed", "2", "--resume", (dir / "ck").string()}));
  CHECK(other.exit_code == 2);
  CHECK(other.output.find("--seed is 1 on the checkpoint, 2 on this run") != std::string::npos);
  CHECK(other.output.find("epoch-5/manifest") != std::string::npos);  // the resume went on checkpointing
}

TEST_CASE("the allreduce model (C): killed after sweep 4, resumed from sweep 3, bitwise the uninterrupted run") {
  TempDir dir;
  generate_corpus(dir);
  const auto straight =
      run_command(lda_argv(dir, {"--model", "C", "--workers", "2", "--out", (dir / "straight").string(), "--quiet"}));
  REQUIRE_MESSAGE(straight.exit_code == 0, straight.output);
  const auto killed =
      run_command(lda_argv(dir, {"--model", "C", "--workers", "2", "--checkpoint", (dir / "ck").string(), "--out",
                                 (dir / "never").string(), "--inject-kill-after-epoch", "4", "--quiet"}));
  REQUIRE_MESSAGE(killed.exit_code == 128 + 9, killed.output);
  const auto resumed = run_command(lda_argv(
      dir, {"--model", "C", "--workers", "2", "--resume", (dir / "ck").string(), "--out", (dir / "resumed").string()}));
  REQUIRE_MESSAGE(resumed.exit_code == 0, resumed.output);
  CHECK(resumed.output.find("resuming after epoch 3") != std::string::npos);
  expect_same_lda_model(dir / "straight", dir / "resumed");
}

TEST_CASE("3 processes over tcp: rank 1 killed with kill -9 mid-job, all 3 resumed, bitwise --workers 3 in one process") {
  TempDir dir;
  generate_corpus(dir);
  const auto straight = run_command(lda_argv(dir, {"--workers", "3", "--out", (dir / "straight").string(), "--quiet"}));
  REQUIRE_MESSAGE(straight.exit_code == 0, straight.output);
  const int from = kill_rank_1_and_resume(
      dir, lda_argv(dir, {"--checkpoint", (dir / "ck").string(), "--out", (dir / "never").string()}),
      lda_argv(dir, {"--resume", (dir / "ck").string(), "--out", (dir / "resumed").string()}), "epoch   3");
  CHECK(from >= 3);
  CHECK(from <= 5);
  expect_same_lda_model(dir / "straight", dir / "resumed");
}
