// tests/apps/lda/gyre_lda_cli_test.cpp — gyre-lda as a user runs it: generated corpus in, model files out; every bad input.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <sstream>
#include <utility>

#include "support/cli_checks.hpp"
#include "support/multiprocess.hpp"
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

// Runs gyre-lda on bad input and checks the contract: exit 2, a message naming the file (and
// line when there is one) and what was wrong, and nothing written.
void expect_bad_lda_input(const TempDir& dir, const std::vector<std::string>& input_args, const std::string& file,
                          int line, const std::string& fragment) {
  std::vector<std::string> argv{gyre_lda()};
  argv.insert(argv.end(), input_args.begin(), input_args.end());
  for (const char* a : {"--epochs", "2", "--topics", "3"}) argv.emplace_back(a);
  argv.insert(argv.end(), {"--out", (dir / "model").string(), "--metrics", (dir / "metrics.jsonl").string()});
  const std::string where = line > 0 ? file + ":" + std::to_string(line) : file;
  gyre::test::expect_refused("gyre-lda", argv, dir, where, fragment);
  // The same input read by byte ranges across 3 processes: the same error, from the rank that holds it.
  gyre::test::expect_refused_by_ranks("gyre-lda", argv, dir, where, fragment);
}

// Writes a planted UCI corpus with gyre-gen into dir/corpus (docword.txt, vocab.txt).
void generate_corpus(const TempDir& dir, int docs, int vocab, int length, int seed) {
  const auto gen = run_command({build_path("tools/gyre-gen").string(), "corpus", "--docs", std::to_string(docs), "--vocab",
                                std::to_string(vocab), "--topics", "4", "--doc-length", std::to_string(length), "--seed",
                                std::to_string(seed), "--out", (dir / "corpus").string()});
  REQUIRE_MESSAGE(gen.exit_code == 0, gen.output);
}

}  // namespace

TEST_CASE("gyre-lda trains on a generated UCI corpus, reports per epoch and writes the documented files") {
  TempDir dir;
  generate_corpus(dir, 400, 300, 60, 2);
  const auto r = run_command({gyre_lda(), "--corpus", (dir / "corpus").string(), "--topics", "4", "--epochs", "15",
                              "--workers", "2", "--threads", "1", "--depth", "2", "--top-words", "5", "--out",
                              (dir / "model").string(), "--metrics", (dir / "metrics.jsonl").string()});
  REQUIRE_MESSAGE(r.exit_code == 0, r.output);
  CHECK(r.output.find("epoch  15") != std::string::npos);
  CHECK(r.output.find("topic   3:") != std::string::npos);  // top words at the end

  const auto epochs = json_lines(read_text(dir / "metrics.jsonl"));
  REQUIRE(epochs.size() == 16);
  for (const char* key : {"epoch", "seconds", "loglik_per_token", "tokens_per_s"}) CHECK(epochs.back().contains(key));
  CHECK(epochs.back()["loglik_per_token"].get<double>() > epochs.front()["loglik_per_token"].get<double>());

  const auto header = nlohmann::json::parse(read_text(dir / "model" / "model.json"));
  CHECK(header["format"] == "gyre-lda");
  CHECK(header["topics"] == 4);
  CHECK(header["vocab"] == 300);
  // word_topic.tsv: counts add up to the tokens; doc_topic.tsv: one line per document.
  std::uint64_t total = 0;
  std::istringstream words(read_text(dir / "model" / "word_topic.tsv"));
  for (std::string line; std::getline(words, line);) {
    std::istringstream fields(line.substr(line.rfind('\t') + 1));
    for (std::string pair; fields >> pair;) total += std::stoull(pair.substr(pair.find(':') + 1));
  }
  CHECK(total == header["tokens"].get<std::uint64_t>());
  const std::string docs = read_text(dir / "model" / "doc_topic.tsv");
  CHECK(static_cast<std::uint64_t>(std::count(docs.begin(), docs.end(), '\n')) == header["docs"].get<std::uint64_t>());
  const std::string topics = read_text(dir / "model" / "topics.txt");
  CHECK(std::count(topics.begin(), topics.end(), '\n') == 4);
}

TEST_CASE("gyre-lda --model A and C report and write as the rotation does, C repeats bit for bit, bad values are refused") {
  TempDir dir;
  generate_corpus(dir, 300, 200, 50, 5);
  const auto train = [&](const std::string& name, const std::vector<std::string>& model_flags) {
    std::vector<std::string> argv{gyre_lda(), "--corpus", (dir / "corpus").string(), "--topics", "4", "--epochs", "8",
                                  "--workers", "3", "--threads", "2", "--out", (dir / name).string(), "--metrics",
                                  (dir / (name + ".jsonl")).string()};
    argv.insert(argv.end(), model_flags.begin(), model_flags.end());
    return run_command(argv);
  };
  const auto rotation = train("rotation", {});
  REQUIRE_MESSAGE(rotation.exit_code == 0, rotation.output);
  for (const auto& run : std::vector<std::pair<std::string, std::vector<std::string>>>{
           {"c1", {"--model", "C"}}, {"c2", {"--model", "allreduce", "--syncs-per-epoch", "3"}},
           {"a1", {"--model", "A"}}, {"a2", {"--model", "locking"}},
           {"d1", {"--model", "D"}}, {"d2", {"--model", "nosync", "--syncs-per-epoch", "2"}}}) {
    const std::string& name = run.first;
    const std::vector<std::string>& flags = run.second;
    CAPTURE(name);
    const auto r = train(name, flags);
    REQUIRE_MESSAGE(r.exit_code == 0, r.output);
    CHECK(r.output.find(name[0] == 'a' ? "locking model" : name[0] == 'd' ? "nosync model" : "allreduce model") !=
          std::string::npos);
    CHECK(r.output.find("epoch   8") != std::string::npos);
    CHECK(r.output.find("topic   3:") != std::string::npos);
    const auto epochs = json_lines(read_text(dir / (name + ".jsonl")));
    const auto reference = json_lines(read_text(dir / "rotation.jsonl"));
    REQUIRE(epochs.size() == reference.size());
    for (std::size_t e = 0; e < epochs.size(); ++e) {
      for (const auto& field : reference[e].items()) CHECK_MESSAGE(epochs[e].contains(field.key()), field.key());
      CHECK(epochs[e].size() == reference[e].size());
    }
    // The random start is the same under both models (its likelihood summed in another order).
    CHECK(epochs.front()["loglik_per_token"].get<double>() ==
          doctest::Approx(reference.front()["loglik_per_token"].get<double>()).epsilon(1e-12));
    CHECK(epochs.back()["loglik_per_token"].get<double>() > epochs.front()["loglik_per_token"].get<double>());
    // The same files, in the same format: one header of the same fields, as many lines.
    const auto header = nlohmann::json::parse(read_text(dir / name / "model.json"));
    const auto reference_header = nlohmann::json::parse(read_text(dir / "rotation" / "model.json"));
    for (const auto& field : reference_header.items())
      if (field.key() != "loglik_per_token") CHECK_MESSAGE(header[field.key()] == field.value(), field.key());
    for (const char* file : {"word_topic.tsv", "doc_topic.tsv", "topics.txt"}) {
      const auto text = read_text(dir / name / file);
      const auto reference_text = read_text(dir / "rotation" / file);
      const auto lines = [](const std::string& t) { return std::count(t.begin(), t.end(), '\n'); };
      CHECK_MESSAGE(lines(text) == lines(reference_text), file);
    }
  }
  // Bitwise repeatable: the same flags again give the same files.
  REQUIRE(train("again", {"--model", "allreduce", "--syncs-per-epoch", "3"}).exit_code == 0);
  for (const char* file : {"word_topic.tsv", "doc_topic.tsv", "topics.txt", "model.json"})
    CHECK_MESSAGE(read_text(dir / "c2" / file) == read_text(dir / "again" / file), file);
  CHECK(read_text(dir / "c1" / "word_topic.tsv") != read_text(dir / "c2" / "word_topic.tsv"));

  for (const std::vector<std::string>& flags :
       {std::vector<std::string>{"--model", "E"}, {"--model", "no-sync"}, {"--model", "c"}}) {
    const auto r = train("bad", flags);
    CHECK(r.exit_code == 2);
    CHECK_MESSAGE(r.output.find("--model") != std::string::npos, r.output);
    CHECK_MESSAGE(r.output.find("expected A|locking, B|rotation, C|allreduce or D|nosync") != std::string::npos, r.output);
  }
  // The locking and no-sync models depend on timing: no checkpoints, refused before the folder is made.
  for (const char* timed : {"A", "D"}) {
    CAPTURE(timed);
    const auto timed_checkpoints = train("bad", {"--model", timed, "--checkpoint", (dir / "ck").string()});
    CHECK(timed_checkpoints.exit_code == 2);
    CHECK_MESSAGE(timed_checkpoints.output.find("locking and nosync depend on timing") != std::string::npos,
                  timed_checkpoints.output);
    CHECK_FALSE(std::filesystem::exists(dir / "ck"));
  }
  for (const char* syncs : {"0", "1025", "x"}) {
    const auto r = train("bad", {"--model", "C", "--syncs-per-epoch", syncs});
    CHECK(r.exit_code == 2);
    CHECK_MESSAGE(r.output.find("--syncs-per-epoch") != std::string::npos, r.output);
  }
  CHECK_FALSE(std::filesystem::exists(dir / "bad"));
}

TEST_CASE("gyre-lda --initial-topics: auto is the document start at the default alpha, the token start at a small one") {
  TempDir dir;
  generate_corpus(dir, 200, 100, 40, 3);
  // Epoch 0's log-likelihood, that of the start itself, for these flags.
  const auto start_loglik = [&](const std::string& name, const std::vector<std::string>& flags) {
    std::vector<std::string> argv{gyre_lda(), "--corpus", (dir / "corpus").string(), "--topics", "4", "--epochs", "1",
                                  "--workers", "2", "--quiet", "--metrics", (dir / (name + ".jsonl")).string()};
    argv.insert(argv.end(), flags.begin(), flags.end());
    const auto r = run_command(argv);
    REQUIRE_MESSAGE(r.exit_code == 0, r.output);
    return json_lines(read_text(dir / (name + ".jsonl"))).front()["loglik_per_token"].get<double>();
  };
  // The default alpha, 50/K: alpha K = 50.
  const double automatic = start_loglik("auto", {});
  CHECK(automatic == start_loglik("document", {"--initial-topics", "document"}));
  CHECK(automatic != start_loglik("token", {"--initial-topics", "token"}));
  CHECK(automatic == start_loglik("auto-named", {"--initial-topics", "auto"}));
  // alpha K = 0.4.
  const double small = start_loglik("small-auto", {"--alpha", "0.1"});
  CHECK(small == start_loglik("small-token", {"--alpha", "0.1", "--initial-topics", "token"}));
  CHECK(small != start_loglik("small-document", {"--alpha", "0.1", "--initial-topics", "document"}));
  for (const char* bad : {"doc", "Token", ""}) {
    CAPTURE(bad);
    const auto r = run_command({gyre_lda(), "--corpus", (dir / "corpus").string(), "--initial-topics", bad});
    CHECK(r.exit_code == 2);
    CHECK_MESSAGE(r.output.find("--initial-topics") != std::string::npos, r.output);
  }
}

TEST_CASE("gyre-lda reads one document per line of raw text and the docid word:count form") {
  TempDir dir;
  write_text(dir / "docs.txt", "The cat sat on the mat with another cat.\nDogs and cats, cats and dogs!\n\nA dog barked.\n");
  auto r = run_command({gyre_lda(), "--corpus", (dir / "docs.txt").string(), "--topics", "2", "--epochs", "3"});
  CHECK_MESSAGE(r.exit_code == 0, r.output);
  CHECK(r.output.find("3 documents") != std::string::npos);
  write_text(dir / "vocab.txt", "cat\ndog\nmat\n");
  write_text(dir / "counts.txt", "7 0:2 2:1\n9 1:3\n");
  r = run_command({gyre_lda(), "--corpus", (dir / "counts.txt").string(), "--topics", "2", "--epochs", "3"});
  CHECK_MESSAGE(r.exit_code == 0, r.output);
  CHECK(r.output.find("2 documents, 6 tokens") != std::string::npos);
}

TEST_CASE("bad input: unknown word id") {
  TempDir dir;
  write_text(dir / "vocab.txt", "cat\ndog\n");
  write_text(dir / "counts.txt", "1 0:2\n2 5:1\n");
  expect_bad_lda_input(dir, {"--corpus", (dir / "counts.txt").string()}, (dir / "counts.txt").string(), 2, "5");
}

TEST_CASE("bad input: empty document") {
  TempDir dir;
  write_text(dir / "vocab.txt", "cat\ndog\n");
  write_text(dir / "counts.txt", "1 0:2\n2\n");
  expect_bad_lda_input(dir, {"--corpus", (dir / "counts.txt").string()}, (dir / "counts.txt").string(), 2, "empty");
}

TEST_CASE("bad input: malformed count") {
  TempDir dir;
  write_text(dir / "vocab.txt", "cat\ndog\n");
  write_text(dir / "counts.txt", "1 0:2 1:x\n");
  expect_bad_lda_input(dir, {"--corpus", (dir / "counts.txt").string()}, (dir / "counts.txt").string(), 1, "count");
}

TEST_CASE("bad input: missing vocab") {
  TempDir dir;
  std::filesystem::create_directories(dir / "uci");
  write_text(dir / "uci" / "docword.txt", "1\n2\n1\n1 1 3\n");
  expect_bad_lda_input(dir, {"--corpus", (dir / "uci").string()}, (dir / "uci" / "vocab.txt").string(), 0, "vocab");
}

TEST_CASE("bad input: missing corpus") {
  TempDir dir;
  expect_bad_lda_input(dir, {"--corpus", (dir / "nope.txt").string()}, (dir / "nope.txt").string(), 0, "nope");
}
