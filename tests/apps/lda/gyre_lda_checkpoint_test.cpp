// tests/apps/lda/gyre_lda_checkpoint_test.cpp — gyre-lda --checkpoint/--resume: killed mid-job and resumed, the model is bitwise the uninterrupted run's, in one process and across 3.
#include <doctest/doctest.h>

#include <filesystem>
#include <sstream>
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

TEST_CASE("K = 70 000, topics beyond 16 bits: trained, checkpointed and resumed bitwise; infer and --init-model read the model") {
  TempDir dir;
  // A small corpus (100 documents of 40 words over 100 words): the K-long arrays, not the
  // tokens, are what K = 70 000 makes large.
  const auto g = run_command({build_path("tools/gyre-gen").string(), "corpus", "--docs", "100", "--vocab", "100", "--topics",
                              "5", "--doc-length", "40", "--seed", "3", "--out", (dir / "corpus").string()});
  REQUIRE_MESSAGE(g.exit_code == 0, g.output);
  const auto wide = [&](std::vector<std::string> extra) {
    std::vector<std::string> argv{gyre_lda(), "--corpus", (dir / "corpus").string(), "--topics", "70000", "--epochs", "4",
                                  "--threads", "1", "--workers", "2", "--quiet"};
    argv.insert(argv.end(), extra.begin(), extra.end());
    return run_command(argv);
  };
  const auto straight = wide({"--out", (dir / "straight").string()});
  REQUIRE_MESSAGE(straight.exit_code == 0, straight.output);
  const auto killed = wide({"--checkpoint", (dir / "ck").string(), "--out", (dir / "never").string(),
                            "--inject-kill-after-epoch", "2"});
  REQUIRE_MESSAGE(killed.exit_code == 128 + 9, killed.output);
  const auto resumed = wide({"--resume", (dir / "ck").string(), "--out", (dir / "resumed").string()});
  REQUIRE_MESSAGE(resumed.exit_code == 0, resumed.output);
  expect_same_lda_model(dir / "straight", dir / "resumed");

  // The model counts tokens in topics that 16 bits cannot name (4 000 tokens over 70 000 topics
  // start uniform: about 260 of them at 65 536 and above).
  std::size_t beyond = 0;
  std::istringstream rows(read_text(dir / "straight" / "word_topic.tsv"));
  for (std::string field; rows >> field;)
    if (const auto colon = field.find(':'); colon != std::string::npos && std::stoull(field.substr(0, colon)) >= 65536) ++beyond;
  CHECK(beyond > 0);
  CHECK(read_text(dir / "straight" / "model.json").find("\"topics\": 70000") != std::string::npos);

  // Two documents in UCI form on the training vocabulary (a row of the output is K numbers).
  std::filesystem::create_directories(dir / "few");
  write_text(dir / "few" / "docword.txt", "2\n100\n5\n1 2 1\n1 3 1\n1 4 2\n2 6 2\n2 7 1\n");
  std::filesystem::copy_file(dir / "corpus" / "vocab.txt", dir / "few" / "vocab.txt");
  const auto inferred = run_command({gyre_lda(), "infer", "--model", (dir / "straight").string(), "--corpus",
                                     (dir / "few").string(), "--out", (dir / "inferred").string(), "--threads", "1"});
  REQUIRE_MESSAGE(inferred.exit_code == 0, inferred.output);
  std::istringstream doc_rows(read_text(dir / "inferred" / "doc_topics.tsv"));
  std::size_t docs = 0;
  for (std::string line; std::getline(doc_rows, line); ++docs) {
    std::istringstream fields(line);
    std::size_t id = 0, topics = 0;
    double p = 0, sum = 0;
    fields >> id;
    for (; fields >> p; ++topics) sum += p;
    CHECK(topics == 70000);
    CHECK(sum == doctest::Approx(1.0).epsilon(1e-3));
  }
  CHECK(docs == 2);
  const auto warm = wide({"--init-model", (dir / "straight").string(), "--out", (dir / "warm").string()});
  REQUIRE_MESSAGE(warm.exit_code == 0, warm.output);
}
