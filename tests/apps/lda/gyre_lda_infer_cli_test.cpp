// tests/apps/lda/gyre_lda_infer_cli_test.cpp — using a trained model from the command line: gyre-lda --test (held-out perplexity per epoch), gyre-lda infer, --init-model; every mismatch refused.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include <cmath>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "support/cli_checks.hpp"
#include "support/run_command.hpp"
#include "support/temp_dir.hpp"

using gyre::test::gyre_lda;
using gyre::test::build_path;
using gyre::test::json_lines;
using gyre::test::read_text;
using gyre::test::run_command;
using gyre::test::TempDir;
using gyre::test::write_text;

namespace {

// A spelling for word id i that the text tokenizer keeps as it is: letters only, no stop word.
std::string word(std::size_t i) { return std::string("q") + static_cast<char>('a' + i % 26) + static_cast<char>('a' + i / 26 % 26); }

// A generated UCI corpus in DIR/corpus with spellable words, and its first `docs` documents
// again as raw text lines in DIR/docs.txt, the first line with one word no model knows.
void make_corpus(const TempDir& dir, std::size_t docs) {
  const auto gen = run_command({build_path("tools/gyre-gen").string(), "corpus", "--docs", "300", "--vocab", "200",
                                "--topics", "4", "--doc-length", "50", "--seed", "3", "--out", (dir / "corpus").string()});
  REQUIRE_MESSAGE(gen.exit_code == 0, gen.output);
  std::string vocab;
  for (std::size_t i = 0; i < 200; ++i) vocab += word(i) + "\n";
  write_text(dir / "corpus" / "vocab.txt", vocab);
  std::vector<std::string> lines(docs);
  lines[0] = "zebra";
  std::istringstream in(read_text(dir / "corpus" / "docword.txt"));
  std::string header;
  for (int i = 0; i < 3; ++i) std::getline(in, header);
  for (std::size_t d, w, n; in >> d >> w >> n;)
    if (d <= docs)
      for (std::size_t c = 0; c < n; ++c) lines[d - 1] += " " + word(w - 1);
  std::string text;
  for (const auto& l : lines) text += l + "\n";
  write_text(dir / "docs.txt", text);
}

std::vector<std::string> train_args(const TempDir& dir, const std::string& name) {
  return {gyre_lda(),     "--corpus",  (dir / "corpus").string(), "--topics", "4",  "--epochs",
          "10",      "--workers", "2",   "--threads", "2",  "--out", (dir / name).string(), "--metrics",
          (dir / (name + ".jsonl")).string()};
}

}  // namespace

TEST_CASE("gyre-lda --test reports held-out perplexity every epoch and leaves training's files as they were") {
  TempDir dir;
  make_corpus(dir, 40);
  auto argv = train_args(dir, "with");
  argv.insert(argv.end(), {"--test", (dir / "docs.txt").string()});
  const auto r = run_command(argv);
  REQUIRE_MESSAGE(r.exit_code == 0, r.output);
  CHECK_MESSAGE(r.output.find("held-out: 40 documents") != std::string::npos, r.output);
  CHECK_MESSAGE(r.output.find("1 tokens of words not in the training vocabulary skipped") != std::string::npos,
                r.output);
  CHECK(r.output.find("epoch  10") != std::string::npos);
  CHECK(r.output.find("heldout_perplexity") != std::string::npos);
  const auto epochs = json_lines(read_text(dir / "with.jsonl"));
  REQUIRE(epochs.size() == 11);
  for (const auto& e : epochs) {
    REQUIRE(e.contains("heldout_perplexity"));
    const double p = e["heldout_perplexity"].get<double>();
    CHECK((std::isfinite(p) && p > 1 && p < 200));  // at most about V = 200: no worse than uniform
  }
  CHECK(epochs.back()["heldout_perplexity"].get<double>() < epochs.front()["heldout_perplexity"].get<double>());

  const auto plain = run_command(train_args(dir, "without"));
  REQUIRE_MESSAGE(plain.exit_code == 0, plain.output);
  CHECK(plain.output.find("heldout_perplexity") == std::string::npos);
  CHECK(json_lines(read_text(dir / "without.jsonl")).back().contains("heldout_perplexity") == false);
  for (const char* file : {"word_topic.tsv", "doc_topic.tsv", "topics.txt", "model.json"})
    CHECK_MESSAGE(read_text(dir / "with" / file) == read_text(dir / "without" / file), file);
}

TEST_CASE("gyre-lda infer writes every document's topic proportions, the same for any --threads") {
  TempDir dir;
  make_corpus(dir, 30);
  const auto trained = run_command(train_args(dir, "model"));
  REQUIRE_MESSAGE(trained.exit_code == 0, trained.output);
  const auto infer = [&](const std::string& corpus, const std::string& out, const char* threads) {
    return run_command({gyre_lda(), "infer", "--model", (dir / "model").string(), "--corpus", corpus, "--out",
                        (dir / out).string(), "--threads", threads, "--sweeps", "10", "--seed", "4"});
  };
  const auto one = infer((dir / "docs.txt").string(), "one", "1");
  REQUIRE_MESSAGE(one.exit_code == 0, one.output);
  CHECK_MESSAGE(one.output.find("30 documents") != std::string::npos, one.output);
  CHECK_MESSAGE(one.output.find("1 tokens of words the model does not know skipped") != std::string::npos, one.output);
  const auto two = infer((dir / "docs.txt").string(), "two", "2");
  REQUIRE_MESSAGE(two.exit_code == 0, two.output);
  const std::string rows = read_text(dir / "one" / "doc_topics.tsv");
  CHECK(rows == read_text(dir / "two" / "doc_topics.tsv"));
  std::istringstream in(rows);
  std::size_t n = 0;
  for (std::string line; std::getline(in, line); ++n) {
    std::istringstream fields(line);
    std::size_t id = 0;
    fields >> id;
    CHECK(id == n);  // doc ids: the input's line indices
    double sum = 0, p = 0;
    int topics = 0;
    for (; fields >> p; ++topics) sum += p;
    CHECK(topics == 4);
    CHECK(sum == doctest::Approx(1.0).epsilon(1e-4));  // %.6g per field
  }
  CHECK(n == 30);
  // Word ids with the model's vocabulary: the training corpus itself.
  const auto ids = infer((dir / "corpus").string(), "ids", "2");
  REQUIRE_MESSAGE(ids.exit_code == 0, ids.output);
  CHECK_MESSAGE(ids.output.find("300 documents") != std::string::npos, ids.output);
  CHECK_MESSAGE(ids.output.find(" 0 tokens of words the model does not know") != std::string::npos, ids.output);
}

TEST_CASE("gyre-lda infer and --test refuse a corpus on another vocabulary, and a bad model, with exit 2") {
  TempDir dir;
  make_corpus(dir, 5);
  const auto trained = run_command(train_args(dir, "model"));
  REQUIRE_MESSAGE(trained.exit_code == 0, trained.output);
  const auto infer_args = [&](const std::filesystem::path& corpus, const std::filesystem::path& model) {
    return std::vector<std::string>{gyre_lda(),  "infer", "--model", model.string(), "--corpus", corpus.string(),
                                    "--out", (dir / "inferred").string()};
  };
  // docword ids into a vocabulary of 3 words, the model's has 200.
  std::filesystem::create_directories(dir / "small");
  write_text(dir / "small" / "vocab.txt", word(0) + "\n" + word(1) + "\n" + word(2) + "\n");
  write_text(dir / "small" / "counts.txt", "1 0:2 2:1\n2 1:3\n");
  gyre::test::expect_refused("gyre-lda infer", infer_args(dir / "small" / "counts.txt", dir / "model"), dir,
                             (dir / "small" / "counts.txt").string(), "vocabulary of 3 words");
  // Text without a word of the model's.
  write_text(dir / "strangers.txt", "zebra giraffe\nokapi\n");
  gyre::test::expect_refused("gyre-lda infer", infer_args(dir / "strangers.txt", dir / "model"), dir,
                             (dir / "strangers.txt").string(), "sharing words");
  // A model whose word_topic.tsv has a topic beyond K, at its line.
  std::filesystem::copy(dir / "model", dir / "broken");
  const std::string rows = read_text(dir / "model" / "word_topic.tsv");
  const std::size_t second = rows.find('\n') + 1;
  write_text(dir / "broken" / "word_topic.tsv", rows.substr(0, second) + "7\t" + word(7) + "\t9:1\n");
  gyre::test::expect_refused("gyre-lda infer", infer_args(dir / "docs.txt", dir / "broken"), dir,
                             (dir / "broken" / "word_topic.tsv").string() + ":2", "topic");
  // Training with held-out text that shares no word: refused before any training.
  auto argv = train_args(dir, "refused");
  argv.insert(argv.end(), {"--test", (dir / "strangers.txt").string()});
  gyre::test::expect_refused("gyre-lda", argv, dir, (dir / "strangers.txt").string(), "sharing words");
}

TEST_CASE("gyre-lda --init-model continues from a model on its word ids or by spelling, and refuses one that does not fit") {
  TempDir dir;
  make_corpus(dir, 300);
  REQUIRE(run_command(train_args(dir, "model")).exit_code == 0);
  const double trained = json_lines(read_text(dir / "model.jsonl")).back()["loglik_per_token"].get<double>();
  const double fresh = json_lines(read_text(dir / "model.jsonl")).front()["loglik_per_token"].get<double>();

  // The same corpus: K, α and β come from the model, and the first state is as good as its last.
  const auto continued = run_command({gyre_lda(), "--corpus", (dir / "corpus").string(), "--init-model",
                                      (dir / "model").string(), "--epochs", "2", "--out", (dir / "more").string(),
                                      "--metrics", (dir / "more.jsonl").string()});
  REQUIRE_MESSAGE(continued.exit_code == 0, continued.output);
  CHECK_MESSAGE(continued.output.find("K=4") != std::string::npos, continued.output);
  const auto epochs = json_lines(read_text(dir / "more.jsonl"));
  REQUIRE(epochs.size() == 3);
  const double start = epochs.front()["loglik_per_token"].get<double>();
  MESSAGE("log-likelihood per token: trained " << trained << ", continued from " << start << ", fresh start " << fresh);
  CHECK(start > trained - 0.02 * std::abs(trained));
  CHECK(start > fresh + 0.5);
  const auto header = nlohmann::json::parse(read_text(dir / "more" / "model.json"));
  const auto model_header = nlohmann::json::parse(read_text(dir / "model" / "model.json"));
  CHECK(header["topics"] == 4);
  CHECK(header["alpha"] == model_header["alpha"]);

  // Raw text, matched by spelling: "zebra" is not the model's and starts from its document.
  const auto text = run_command({gyre_lda(), "--corpus", (dir / "docs.txt").string(), "--init-model",
                                 (dir / "model").string(), "--epochs", "1", "--quiet"});
  CHECK_MESSAGE(text.exit_code == 0, text.output);

  const auto refused = [&](std::vector<std::string> corpus_args, const std::filesystem::path& model,
                           const std::string& where, const std::string& fragment) {
    std::vector<std::string> argv{gyre_lda()};
    argv.insert(argv.end(), corpus_args.begin(), corpus_args.end());
    argv.insert(argv.end(), {"--init-model", model.string(), "--epochs", "1", "--out", (dir / "refused").string()});
    gyre::test::expect_refused("gyre-lda", argv, dir, where, fragment);
  };
  refused({"--corpus", (dir / "corpus").string(), "--topics", "5"}, dir / "model", (dir / "model").string(),
          "has 4 topics");
  std::filesystem::create_directories(dir / "small");
  write_text(dir / "small" / "vocab.txt", word(0) + "\n" + word(1) + "\n" + word(2) + "\n");
  write_text(dir / "small" / "counts.txt", "1 0:2 2:1\n2 1:3\n");
  refused({"--corpus", (dir / "small" / "counts.txt").string()}, dir / "model",
          (dir / "small" / "counts.txt").string(), "vocabulary of 3 words");
  write_text(dir / "strangers.txt", "zebra giraffe\nokapi\n");
  refused({"--corpus", (dir / "strangers.txt").string()}, dir / "model", (dir / "strangers.txt").string(),
          "sharing words");
  refused({"--corpus", (dir / "corpus").string()}, dir / "nowhere", (dir / "nowhere").string(), "");
}
