// tests/lib/data/tokenizer_test.cpp — text-lines reader: lowercase, split on non-letters, stop words, min count, deterministic ids.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "gyre/data/corpus_io.hpp"
#include "support/input_errors.hpp"
#include "support/temp_dir.hpp"

using namespace gyre::data;
using gyre::test::catch_input_error;
using gyre::test::contains;
using gyre::test::TempDir;
using gyre::test::write_text;

namespace {

Corpus read(const TempDir& dir, const std::string& text, const TokenizerOptions& opts = {}) {
  write_text(dir / "t.txt", text);
  return read_text_lines(dir / "t.txt", opts);
}

std::vector<std::string> words_of(const Corpus& c, std::uint64_t d) {
  std::vector<std::string> out;
  for (const std::uint32_t w : c.doc(d)) out.push_back(c.vocab[w]);
  return out;
}

}  // namespace

TEST_CASE("tokenizer: lowercases and splits on everything that is not an ASCII letter") {
  TempDir dir;
  const Corpus c = read(dir, "Hello, WORLD! it's x2y mid-air caf\xc3\xa9 tab\there\n");
  REQUIRE(c.docs() == 1);
  // "it's" → "it" + "s" (too short), "x2y" → "x" "y" (too short), "café" → "caf" (é is not a letter)
  CHECK(words_of(c, 0) == std::vector<std::string>{"hello", "world", "it", "mid", "air", "caf", "tab", "here"});
}

TEST_CASE("tokenizer: ids by descending frequency, ties alphabetical; same text, same ids") {
  TempDir dir;
  const std::string text = "pear apple fig\nfig pear\nfig\n";
  const Corpus c = read(dir, text);
  CHECK(c.vocab == std::vector<std::string>{"fig", "pear", "apple"});
  CHECK(words_of(c, 0) == std::vector<std::string>{"pear", "apple", "fig"});
  const Corpus again = read(dir, text);
  CHECK(again.words == c.words);
  CHECK(again.vocab == c.vocab);
  CHECK(read(dir, "zz yy xx\n").vocab == std::vector<std::string>{"xx", "yy", "zz"});
}

TEST_CASE("tokenizer: stop words, min length and min count; empty documents dropped, doc ids are line indexes") {
  TempDir dir;
  TokenizerOptions opts;
  const auto stops = default_stop_words();
  opts.stop_words.insert(stops.begin(), stops.end());
  opts.min_count = 2;
  opts.min_length = 3;
  const Corpus c = read(dir,
                        "The cat and the dog\n"
                        "\n"
                        "a an of\n"
                        "cat dog ox ox bird\n"
                        "bird cat\n",
                        opts);
  // "ox" is too short, "the"/"and" are stop words; every kept word occurs at least twice.
  CHECK(c.vocab == std::vector<std::string>{"cat", "bird", "dog"});
  CHECK(c.doc_ids == std::vector<std::uint64_t>{0, 3, 4});
  CHECK(words_of(c, 1) == std::vector<std::string>{"cat", "dog", "bird"});
}

TEST_CASE("tokenizer: stop-word file is lowercased and skips comments") {
  TempDir dir;
  write_text(dir / "stop.txt", "# my list\nFoo\n\n  bar \n");
  const auto words = read_stop_words(dir / "stop.txt");
  CHECK(words == std::vector<std::string>{"foo", "bar"});
  TokenizerOptions opts;
  opts.stop_words.insert(words.begin(), words.end());
  CHECK(read(dir, "FOO baz Bar\n", opts).vocab == std::vector<std::string>{"baz"});
  const auto defaults = default_stop_words();
  CHECK(std::find(defaults.begin(), defaults.end(), "the") != defaults.end());
}

TEST_CASE("tokenizer: a file with no tokens left is an error naming the file and why") {
  TempDir dir;
  auto e = catch_input_error([&] { read(dir, "1 2 3\n\n! ?\n"); });
  INFO(e.message);
  REQUIRE(e.thrown);
  CHECK(e.file == dir / "t.txt");
  CHECK(e.line == 0);
  CHECK(contains(e.message, (dir / "t.txt").string() + ": expected at least one word of 2+ ASCII letters"));

  TokenizerOptions opts;
  opts.min_count = 3;
  e = catch_input_error([&] { read(dir, "one two\ntwo\n", opts); });
  REQUIRE(e.thrown);
  CHECK(contains(e.message, "occurs at least 3 times"));

  e = catch_input_error([&] { read(dir, ""); });
  CHECK(contains(e.message, "found 'an empty file'"));
}

TEST_CASE("tokenizer on 2-8 threads: the same vocabulary, ids, documents and dropped lines as one thread") {
  TempDir dir;
  std::string text;
  // Words first seen in every part of the file, repeated across lines, blank lines and lines
  // left empty by the stop words between them.
  for (int i = 0; i < 2000; ++i) {
    for (int k = 0; k <= i % 5; ++k) text += std::string(1, static_cast<char>('a' + (i * 7 + k) % 26)) + "q" +
                                           std::string(1, static_cast<char>('a' + (i / 26 + k) % 26)) + " ";
    text += i % 9 == 0 ? "\n\nthe and\n" : "\n";
  }
  TokenizerOptions opts;
  opts.stop_words = {"the", "and"};
  opts.min_count = 3;
  write_text(dir / "t.txt", text);
  const Corpus one = read_text_lines(dir / "t.txt", opts);
  for (std::size_t threads = 2; threads <= 8; ++threads) {
    CAPTURE(threads);
    const Corpus many = read_text_lines(dir / "t.txt", opts, threads);
    CHECK(many.vocab == one.vocab);
    CHECK(many.doc_ids == one.doc_ids);
    CHECK(many.doc_begin == one.doc_begin);
    CHECK(many.words == one.words);
  }
}

TEST_CASE("tokenizer over a directory: its files in name order as one text, each file ending its last line") {
  TempDir dir;
  write_text(dir / "whole.txt", "alpha beta\n\ngamma alpha\ndelta beta\nalpha\n");
  std::filesystem::create_directories(dir / "parts");
  write_text(dir / "parts/b.txt", "gamma alpha\ndelta beta");  // no final '\n': the file ends the line
  write_text(dir / "parts/a.txt", "alpha beta\n\n");
  write_text(dir / "parts/c.txt", "alpha\n");
  write_text(dir / "parts/.hidden", "omega omega omega\n");  // not read
  write_text(dir / "parts/empty.txt", "");
  const Corpus whole = read_text_lines(dir / "whole.txt", {});
  for (const std::size_t threads : {std::size_t{1}, std::size_t{3}}) {
    CAPTURE(threads);
    const Corpus parts = read_text_lines(dir / "parts", {}, threads);
    CHECK(parts.vocab == whole.vocab);
    CHECK(parts.doc_ids == whole.doc_ids);
    CHECK(parts.doc_begin == whole.doc_begin);
    CHECK(parts.words == whole.words);
  }
  CorpusOptions text;
  text.format = CorpusFormat::text;
  CHECK(load_corpus(dir / "parts", text).words == whole.words);
  // Unsaid, a directory is a partition or a UCI directory.
  CHECK(catch_input_error([&] { load_corpus(dir / "parts"); }).thrown);
}
