// tests/tools/corpus_tools_test.cpp — gyre-gen corpus | gyre-partition corpus end to end; bad input exits 2 and writes nothing.
#include <doctest/doctest.h>

#include <sstream>

#include "gyre/data/corpus_io.hpp"
#include "gyre/data/corpus_partition.hpp"
#include "gyre/model/row_blocks.hpp"
#include "support/input_errors.hpp"
#include "support/run_command.hpp"

using gyre::test::build_path;
using gyre::test::contains;
using gyre::test::read_text;
using gyre::test::run_command;
using gyre::test::TempDir;
using gyre::test::write_text;

namespace {

gyre::test::CommandResult gen_corpus(const std::filesystem::path& out, const std::string& seed = "5") {
  return run_command({build_path("tools/gyre-gen").string(), "corpus", "--docs", "400", "--vocab", "300", "--topics",
                      "6", "--doc-length", "50", "--alpha", "0.2", "--beta", "0.05", "--seed", seed, "--out",
                      out.string()});
}

gyre::test::CommandResult partition_corpus(const std::filesystem::path& input, const std::filesystem::path& out,
                                           std::vector<std::string> extra = {}) {
  std::vector<std::string> args{build_path("tools/gyre-partition").string(), "corpus", "--input", input.string(),
                                "--parts", "3", "--out", out.string()};
  args.insert(args.end(), extra.begin(), extra.end());
  return run_command(args);
}

}  // namespace

TEST_CASE("gyre-gen corpus | gyre-partition corpus: shards, word counts and blocks load back") {
  TempDir dir;
  const auto gen = gen_corpus(dir / "gen");
  INFO(gen.output);
  REQUIRE(gen.exit_code == 0);
  CHECK(contains(gen.output, "gyre-gen: wrote 400 docs, "));
  CHECK(TempDir::list_dir(dir / "gen") ==
        std::vector<std::string>{"doc_topics.tsv", "docword.txt", "topics.tsv", "vocab.txt"});

  const auto r = partition_corpus(dir / "gen", dir / "parts", {"--blocks", "5"});
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  const auto original = gyre::data::load_corpus(dir / "gen");
  CHECK(contains(r.output, "gyre-partition: 400 docs, " + std::to_string(original.tokens()) +
                               " tokens (vocab 300) into 3 parts and 5 word blocks"));
  CHECK(contains(r.output, "balance (max/mean): 1.0"));
  CHECK(TempDir::list_dir(dir / "parts") ==
        std::vector<std::string>{"blocks.txt", "manifest.json", "part-00000.shard", "part-00001.shard",
                                 "part-00002.shard", "vocab.txt", "word_counts.txt"});

  const auto merged = gyre::data::load_corpus(dir / "parts");
  CHECK(merged.words == original.words);
  CHECK(merged.doc_ids == original.doc_ids);
  const auto counts = gyre::data::read_word_counts(dir / "parts");
  const auto blocks = gyre::model::RowBlocks::balance(counts, 5);
  std::istringstream lines(read_text(dir / "parts" / "blocks.txt"));
  std::uint32_t block = 0, row = 0, words = 0;
  while (lines >> block >> row) {
    REQUIRE(words < 300);
    CHECK(block == blocks.block_of[words]);
    CHECK(row == blocks.row_of[words]);
    ++words;
  }
  CHECK(words == 300);
}

TEST_CASE("gyre-gen corpus: same seed, same bytes") {
  TempDir dir;
  REQUIRE(gen_corpus(dir / "a", "8").exit_code == 0);
  REQUIRE(gen_corpus(dir / "b", "8").exit_code == 0);
  REQUIRE(gen_corpus(dir / "c", "9").exit_code == 0);
  for (const char* f : {"docword.txt", "vocab.txt", "topics.tsv", "doc_topics.tsv"})
    CHECK(read_text(dir / "a" / f) == read_text(dir / "b" / f));
  CHECK(read_text(dir / "a" / "docword.txt") != read_text(dir / "c" / "docword.txt"));
}

TEST_CASE("gyre-partition corpus: text input with stop words and min count; blocks default to parts") {
  TempDir dir;
  write_text(dir / "docs.txt", "The cat sat on the mat\nthe dog sat\n\nA cat and a dog\nzebra\n");
  write_text(dir / "stop.txt", "sat\n");
  auto r = partition_corpus(dir / "docs.txt", dir / "p1", {"--min-count", "2"});
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  CHECK(read_text(dir / "p1" / "vocab.txt") == "cat\ndog\nsat\n");  // default stop words: the, on, a, and
  CHECK(contains(r.output, "into 3 parts and 3 word blocks"));

  r = partition_corpus(dir / "docs.txt", dir / "p2", {"--stop-words", (dir / "stop.txt").string()});
  REQUIRE(r.exit_code == 0);
  CHECK(read_text(dir / "p2" / "vocab.txt") == "the\ncat\ndog\nand\nmat\non\nzebra\n");
  r = partition_corpus(dir / "docs.txt", dir / "p3", {"--stop-words", "none", "--min-length", "1"});
  REQUIRE(r.exit_code == 0);
  CHECK(contains(read_text(dir / "p3" / "vocab.txt"), "\na\n"));
}

TEST_CASE("gyre-partition corpus: bad input exits 2 naming file and line, and writes nothing") {
  TempDir dir;
  write_text(dir / "vocab.txt", "x\ny\n");
  write_text(dir / "bad.txt", "0 0:1 1:2\n1 0:1 2:1\n");
  auto r = partition_corpus(dir / "bad.txt", dir / "parts");
  CHECK(r.exit_code == 2);
  CHECK(contains(r.output, "gyre-partition: error: " + (dir / "bad.txt").string() +
                               ":2: expected a word id (0-based line of " + (dir / "vocab.txt").string() +
                               ") in [0, 1], found '2'"));
  CHECK(dir.entries() == std::vector<std::string>{"bad.txt", "vocab.txt"});

  std::filesystem::create_directory(dir / "parts");
  write_text(dir / "parts" / "keep.txt", "x");
  CHECK(partition_corpus(dir / "bad.txt", dir / "parts").exit_code == 2);
  CHECK(TempDir::list_dir(dir / "parts") == std::vector<std::string>{"keep.txt"});

  write_text(dir / "docword.txt", "1\n3\n1\n1 1 1\n");
  r = partition_corpus(dir / "docword.txt", dir / "out");
  CHECK(r.exit_code == 2);
  CHECK(contains(r.output, (dir / "docword.txt").string() + ":2: expected W equal to the 2 words of"));
  CHECK(!std::filesystem::exists(dir / "out"));

  r = partition_corpus(dir / "empty.txt", dir / "out", {"--format", "text"});
  CHECK(r.exit_code == 2);
  CHECK(contains(r.output, "expected a readable file"));

  write_text(dir / "digits.txt", "1 2 3\n");
  r = partition_corpus(dir / "digits.txt", dir / "out");
  CHECK(r.exit_code == 2);
  CHECK(contains(r.output, (dir / "digits.txt").string() + ": expected at least one word"));
  CHECK(!std::filesystem::exists(dir / "out"));
}

TEST_CASE("gyre-partition corpus and gyre-gen corpus: usage errors") {
  TempDir dir;
  write_text(dir / "t.txt", "some words here\n");
  auto r = partition_corpus(dir / "t.txt", dir / "out", {"--format", "xml"});
  CHECK(r.exit_code != 0);
  CHECK(contains(r.output, "--format"));
  r = partition_corpus(dir / "t.txt", dir / "out", {"--blocks", "0"});
  CHECK(r.exit_code != 0);
  r = run_command({build_path("tools/gyre-gen").string(), "corpus", "--docs", "10", "--vocab", "10", "--topics", "0",
                   "--seed", "1", "--out", (dir / "g").string()});
  CHECK(r.exit_code != 0);
  CHECK(contains(r.output, "--topics"));
  CHECK(dir.entries() == std::vector<std::string>{"t.txt"});
}
