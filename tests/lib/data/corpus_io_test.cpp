// tests/lib/data/corpus_io_test.cpp — UCI and docword readers, format detection, UCI writer: accepted input and every bad-input message.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "gyre/data/corpus_io.hpp"
#include "support/fifo_input.hpp"
#include "support/input_errors.hpp"
#include "support/temp_dir.hpp"

using namespace gyre::data;
using gyre::test::catch_input_error;
using gyre::test::check_input_error;
using gyre::test::CaughtInputError;
using gyre::test::contains;
using gyre::test::read_text;
using gyre::test::TempDir;
using gyre::test::write_text;

namespace {

std::vector<std::uint32_t> doc_words(const Corpus& c, std::uint64_t d) {
  const auto s = c.doc(d);
  return {s.begin(), s.end()};
}

constexpr const char* kVocab = "apple\nbanana\ncherry\ndate\n";

CaughtInputError uci_error(const TempDir& dir, const std::string& docword, const std::string& vocab = kVocab) {
  write_text(dir / "docword.txt", docword);
  write_text(dir / "vocab.txt", vocab);
  return catch_input_error([&] { read_uci(dir / "docword.txt", dir / "vocab.txt"); });
}

CaughtInputError docword_error(const TempDir& dir, const std::string& text) {
  write_text(dir / "d.txt", text);
  write_text(dir / "vocab.txt", kVocab);
  return catch_input_error([&] { read_doc_word_counts(dir / "d.txt", dir / "vocab.txt"); });
}

}  // namespace

TEST_CASE("uci: documents grouped by id in stable order, counts expanded, empty documents dropped") {
  TempDir dir;
  write_text(dir / "docword.txt", "5\n4\n6\n3 2 1\n1 1 2\n3 4 1\n1 3 1\n\n5 1 3\n1 2 1\n");
  write_text(dir / "vocab.txt", kVocab);
  const Corpus c = read_uci(dir / "docword.txt", dir / "vocab.txt");
  CHECK(c.vocab == std::vector<std::string>{"apple", "banana", "cherry", "date"});
  REQUIRE(c.docs() == 3);  // documents 2 and 4 have no entries
  CHECK(c.doc_ids == std::vector<std::uint64_t>{0, 2, 4});
  CHECK(doc_words(c, 0) == std::vector<std::uint32_t>{0, 0, 2, 1});
  CHECK(doc_words(c, 1) == std::vector<std::uint32_t>{1, 3});
  CHECK(doc_words(c, 2) == std::vector<std::uint32_t>{0, 0, 0});
  CHECK(c.tokens() == 9);
}

TEST_CASE("uci: missing vocabulary names the vocabulary file and the docword it serves") {
  TempDir dir;
  write_text(dir / "docword.txt", "1\n4\n1\n1 1 1\n");
  const auto e = catch_input_error([&] { read_uci(dir / "docword.txt", dir / "vocab.txt"); });
  check_input_error(e, dir / "vocab.txt", 0, "the vocabulary file (one word per line) for " + (dir / "docword.txt").string(),
                    "no such file");
}

TEST_CASE("uci: header mismatches") {
  TempDir dir;
  check_input_error(uci_error(dir, "2\n5\n1\n1 1 1\n"), dir / "docword.txt", 2,
                    "W equal to the 4 words of " + (dir / "vocab.txt").string(), "5");
  check_input_error(uci_error(dir, "2\n4\n3\n1 1 1\n2 2 2\n"), dir / "docword.txt", 3, "3 entries as declared by NNZ",
                    "2 entries");
  check_input_error(uci_error(dir, "2\n4\n1\n1 1 1\n2 2 2\n"), dir / "docword.txt", 5,
                    "1 entries as declared by NNZ on line 3, no more", "2 2 2");
  check_input_error(uci_error(dir, "2\nfour\n1\n1 1 1\n"), dir / "docword.txt", 2, "the number of words W", "four");
  check_input_error(uci_error(dir, "2\n4\n"), dir / "docword.txt", 0, "the number of entries NNZ", "end of file");
}

TEST_CASE("uci: bad ids and counts name line and expectation") {
  TempDir dir;
  const auto docword = dir / "docword.txt";
  check_input_error(uci_error(dir, "2\n4\n2\n1 1 1\n1 5 1\n"), docword, 5, "a word id in [1, 4]", "5");
  check_input_error(uci_error(dir, "2\n4\n1\n1 0 1\n"), docword, 4, "a word id in [1, 4]", "0");
  check_input_error(uci_error(dir, "2\n4\n1\n0 1 1\n"), docword, 4, "a document id in [1, 2]", "0");
  check_input_error(uci_error(dir, "2\n4\n1\n3 1 1\n"), docword, 4, "a document id in [1, 2]", "3");
  check_input_error(uci_error(dir, "2\n4\n1\n1 1 0\n"), docword, 4, "a positive integer count", "0");
  check_input_error(uci_error(dir, "2\n4\n1\n1 1 -2\n"), docword, 4, "a positive integer count", "-2");
  check_input_error(uci_error(dir, "2\n4\n1\n1 1 x\n"), docword, 4, "a positive integer count", "x");
  check_input_error(uci_error(dir, "2\n4\n1\n1 1\n"), docword, 4, "3 fields \"docID wordID count\"", "1 1");
  check_input_error(uci_error(dir, "2\n4\n0\n"), docword, 3, "at least one entry");
}

TEST_CASE("uci: an empty line in the vocabulary is an error at that line") {
  TempDir dir;
  check_input_error(uci_error(dir, "1\n3\n1\n1 1 1\n", "a\n\nc\n"), dir / "vocab.txt", 2, "a word (one per line)",
                    "an empty line");
}

TEST_CASE("docword: doc ids kept, pairs expanded in order") {
  TempDir dir;
  write_text(dir / "d.txt", "7 0:2 3:1\n\n2\t1:1  2:3\r\n");
  write_text(dir / "vocab.txt", kVocab);
  const Corpus c = read_doc_word_counts(dir / "d.txt", dir / "vocab.txt");
  REQUIRE(c.docs() == 2);
  CHECK(c.doc_ids == std::vector<std::uint64_t>{7, 2});
  CHECK(doc_words(c, 0) == std::vector<std::uint32_t>{0, 0, 3});
  CHECK(doc_words(c, 1) == std::vector<std::uint32_t>{1, 2, 2, 2});
  CHECK(c.vocab_size() == 4);
}

TEST_CASE("docword: unknown word, malformed pairs, empty document, missing vocabulary") {
  TempDir dir;
  const auto file = dir / "d.txt";
  const std::string word_id = "a word id (0-based line of " + (dir / "vocab.txt").string() + ") in [0, 3]";
  check_input_error(docword_error(dir, "0 0:1\n1 4:1\n"), file, 2, word_id, "4");
  check_input_error(docword_error(dir, "0 0:1 2\n"), file, 1, "a \"word:count\" pair", "2");
  check_input_error(docword_error(dir, "0 a:1\n"), file, 1, word_id, "a");
  check_input_error(docword_error(dir, "0 1:0\n"), file, 1, "a positive integer count in \"word:count\"", "0");
  check_input_error(docword_error(dir, "0 1:\n"), file, 1, "a positive integer count in \"word:count\"");
  check_input_error(docword_error(dir, "0 1:2\n5\n"), file, 2, "pairs after the document id (an empty document)", "5");
  check_input_error(docword_error(dir, "x 1:2\n"), file, 1, "a document id", "x");
  check_input_error(docword_error(dir, "\n\n"), file, 0, "at least one line \"docid word:count ...\"");

  write_text(dir / "e.txt", "0 1:1\n");
  const auto e = catch_input_error([&] { read_doc_word_counts(dir / "e.txt", dir / "none.txt"); });
  check_input_error(e, dir / "none.txt", 0, "the vocabulary file (one word per line) for " + (dir / "e.txt").string(),
                    "no such file");
}

TEST_CASE("load_corpus: detects UCI directories and files, docword and text") {
  TempDir dir;
  std::filesystem::create_directory(dir / "uci");
  write_text(dir / "uci" / "docword.txt", "1\n4\n1\n1 2 3\n");
  write_text(dir / "uci" / "vocab.txt", kVocab);
  CHECK(load_corpus(dir / "uci").tokens() == 3);
  CHECK(load_corpus(dir / "uci" / "docword.txt").tokens() == 3);

  write_text(dir / "docword.nips.txt", "1\n2\n1\n1 2 1\n");
  write_text(dir / "vocab.nips.txt", "x\ny\n");
  const Corpus nips = load_corpus(dir / "docword.nips.txt");
  CHECK(nips.vocab == std::vector<std::string>{"x", "y"});

  write_text(dir / "lightlda.txt", "\n  \n3 1:2 0:1\n");
  write_text(dir / "vocab.txt", kVocab);
  const Corpus lda = load_corpus(dir / "lightlda.txt");
  CHECK(lda.doc_ids == std::vector<std::uint64_t>{3});
  CHECK(lda.tokens() == 3);

  write_text(dir / "other_vocab.txt", "p\nq\n");
  CorpusOptions with_vocab;
  with_vocab.vocab = dir / "other_vocab.txt";
  CHECK(load_corpus(dir / "lightlda.txt", with_vocab).vocab == std::vector<std::string>{"p", "q"});

  write_text(dir / "text.txt", "3 apples and 2 pears\n");  // starts with a number, but no word:count
  const Corpus text = load_corpus(dir / "text.txt");
  CHECK(text.vocab == std::vector<std::string>{"and", "apples", "pears"});  // no stop words unless asked
}

TEST_CASE("load_corpus: missing things are named with where they were looked for") {
  TempDir dir;
  auto e = catch_input_error([&] { load_corpus(dir / "absent.txt"); });
  check_input_error(e, dir / "absent.txt", 0, "a readable file", "No such file or directory");

  e = catch_input_error([&] { load_corpus(dir.path()); });
  check_input_error(e, dir.path(), 0, "a corpus partition (manifest.json) or docword.txt and vocab.txt in this directory");

  write_text(dir / "docword.kos.txt", "1\n1\n1\n1 1 1\n");
  e = catch_input_error([&] { load_corpus(dir / "docword.kos.txt"); });
  check_input_error(e, dir / "vocab.kos.txt", 0, "the vocabulary file", "no such file");

  write_text(dir / "counts.txt", "0 0:1\n");
  e = catch_input_error([&] { load_corpus(dir / "counts.txt"); });
  check_input_error(e, dir / "vocab.txt", 0, "the vocabulary file (one word per line) for " + (dir / "counts.txt").string());

  // Said to be text, a directory is its files' lines (here digits and ids only: no word).
  CorpusOptions text;
  text.format = CorpusFormat::text;
  e = catch_input_error([&] { load_corpus(dir.path(), text); });
  check_input_error(e, dir.path(), 0, "at least one word of 2+ ASCII letters", "no such word");
}

TEST_CASE("write_uci: aggregated counts by word id, 1-based documents; reads back") {
  TempDir dir;
  Corpus c;
  c.vocab = {"a", "b", "c"};
  const std::vector<std::uint32_t> d0{2, 0, 2, 2}, d1{1};
  c.add_doc(10, d0);
  c.add_doc(4, d1);
  write_uci(dir / "out", c);
  CHECK(TempDir::list_dir(dir / "out") == std::vector<std::string>{"docword.txt", "vocab.txt"});
  CHECK(read_text(dir / "out" / "docword.txt") == "2\n3\n3\n1 1 1\n1 3 3\n2 2 1\n");
  CHECK(read_text(dir / "out" / "vocab.txt") == "a\nb\nc\n");
  const Corpus back = read_uci(dir / "out" / "docword.txt", dir / "out" / "vocab.txt");
  CHECK(back.doc_ids == std::vector<std::uint64_t>{0, 1});
  CHECK(doc_words(back, 0) == std::vector<std::uint32_t>{0, 2, 2, 2});
  CHECK(doc_words(back, 1) == std::vector<std::uint32_t>{1});
}

TEST_CASE("corpus: add_doc refuses words outside the vocabulary; count_words sums shards") {
  Corpus c;
  c.vocab = {"a", "b"};
  const std::vector<std::uint32_t> bad{0, 2};
  CHECK_THROWS_AS(c.add_doc(0, bad), std::invalid_argument);
  CHECK(c.docs() == 0);
  const std::vector<std::uint32_t> good{0, 1, 1};
  c.add_doc(0, good);
  Corpus self = c;
  for (int i = 0; i < 5; ++i) self.add_doc(1, self.doc(0));  // a span into its own tokens
  CHECK(self.tokens() == 18);
  CHECK(doc_words(self, 5) == good);
  Corpus other = c;
  other.add_doc(1, good);
  const std::vector<Corpus> shards{c, other};
  CHECK(count_words(shards) == std::vector<std::uint64_t>{3, 6});
}

TEST_CASE("uci: a file of several read blocks keeps the true line numbers and the running totals across them") {
  TempDir dir;
  // About 6 MiB of entries: several blocks of the streamed reader.
  constexpr std::uint64_t entries = 1'000'000;
  std::string body;
  body.reserve(entries * 7);
  for (std::uint64_t i = 0; i < entries; ++i) body += std::to_string(1 + i % 9) + " " + std::to_string(1 + i % 4) + " 1\n";
  const std::string header = "9\n4\n" + std::to_string(entries) + "\n";
  write_text(dir / "docword.txt", header + body);
  write_text(dir / "vocab.txt", kVocab);
  const Corpus c = read_uci(dir / "docword.txt", dir / "vocab.txt");
  CHECK(c.docs() == 9);
  CHECK(c.tokens() == entries);

  // A bad entry near the end, past the first block: its line in the file.
  std::string bad = body;
  const std::uint64_t at = entries - 10;  // 0-based entry; line at + 4
  const std::size_t offset = [&] {
    std::size_t o = 0;
    for (std::uint64_t i = 0; i < at; ++i) o = bad.find('\n', o) + 1;
    return o;
  }();
  bad.replace(offset, bad.find('\n', offset) - offset, "3 x 1");
  check_input_error(uci_error(dir, header + bad), dir / "docword.txt", at + 4, "a word id", "x");

  // The token budget counts on across blocks: refused at the line that passes it.
  write_text(dir / "docword.txt", header + body);
  const auto e = catch_input_error([&] { read_uci(dir / "docword.txt", dir / "vocab.txt", entries - 5); });
  check_input_error(e, dir / "docword.txt", entries - 4 + 3, "a corpus of at most " + std::to_string(entries - 5) + " tokens");
}

TEST_CASE("a byte-order mark before a UCI header or a docword file is not data") {
  TempDir dir;
  write_text(dir / "docword.txt", "\xEF\xBB\xBF" "2\n4\n2\n1 2 1\n2 4 3\n");
  write_text(dir / "vocab.txt", kVocab);
  const Corpus uci = read_uci(dir / "docword.txt", dir / "vocab.txt");
  CHECK(uci.docs() == 2);
  CHECK(uci.tokens() == 4);
  write_text(dir / "d.txt", "\xEF\xBB\xBF" "7 1:2 3:1\n");
  const Corpus docword = read_doc_word_counts(dir / "d.txt", dir / "vocab.txt");
  CHECK(docword.doc_ids == std::vector<std::uint64_t>{7});
  CHECK(docword.tokens() == 3);
}

TEST_CASE("uci and docword on 2-8 threads: the serial corpus, and the serial first error") {
  TempDir dir;
  write_text(dir / "vocab.txt", kVocab);
  constexpr int entries = 3000;
  std::vector<std::string> uci_lines, docword_lines;
  for (int i = 0; i < entries; ++i) {
    // Documents of 1-3 entries, a few of them out of order.
    const int doc = 1 + (i % 7 == 3 ? i / 2 : i);
    uci_lines.push_back(std::to_string(doc) + " " + std::to_string(1 + i % 4) + " " + std::to_string(1 + i % 3) + "\n");
    docword_lines.push_back(std::to_string(i) + " " + std::to_string(i % 4) + ":" + std::to_string(1 + i % 3) + " " +
                            std::to_string((i + 1) % 4) + ":1\n");
  }
  const auto joined = [](const std::vector<std::string>& lines) {
    std::string text;
    for (const auto& l : lines) text += l;
    return text;
  };
  const std::string uci_header = std::to_string(entries) + "\n4\n" + std::to_string(entries) + "\n";
  const auto same = [](const Corpus& a, const Corpus& b) {
    CHECK(a.doc_ids == b.doc_ids);
    CHECK(a.doc_begin == b.doc_begin);
    CHECK(a.words == b.words);
  };
  // The message of the first error the reader throws on `threads` threads.
  const auto uci_message = [&](const std::string& text, std::uint64_t max_tokens, std::size_t threads) {
    write_text(dir / "docword.txt", text);
    return catch_input_error([&] { read_uci(dir / "docword.txt", dir / "vocab.txt", max_tokens, threads); }).message;
  };
  const auto docword_message = [&](const std::string& text, std::uint64_t max_tokens, std::size_t threads) {
    write_text(dir / "d.txt", text);
    return catch_input_error([&] { read_doc_word_counts(dir / "d.txt", dir / "vocab.txt", max_tokens, threads); }).message;
  };

  write_text(dir / "docword.txt", uci_header + joined(uci_lines));
  write_text(dir / "d.txt", joined(docword_lines));
  const Corpus uci = read_uci(dir / "docword.txt", dir / "vocab.txt");
  const Corpus docword = read_doc_word_counts(dir / "d.txt", dir / "vocab.txt");
  const std::uint64_t uci_tokens = uci.tokens(), docword_tokens = docword.tokens();

  // A bad field in the last tenth; and the token budget passed in the first quarter, before it,
  // which is the serial reader's first error although the bad line's chunk fails too.
  auto bad_uci = uci_lines, bad_docword = docword_lines;
  bad_uci[entries * 9 / 10] = "5 x 1\n";
  bad_docword[entries * 9 / 10] = "17 2:oops\n";
  // NNZ declaring fewer entries than the file holds: refused at the first extra one.
  const std::string fewer = std::to_string(entries) + "\n4\n" + std::to_string(entries - 40) + "\n" + joined(uci_lines);

  for (std::size_t threads = 2; threads <= 8; ++threads) {
    CAPTURE(threads);
    same(read_uci(dir / "docword.txt", dir / "vocab.txt", UINT64_MAX, threads), uci);
    same(read_doc_word_counts(dir / "d.txt", dir / "vocab.txt", UINT64_MAX, threads), docword);
    for (const std::uint64_t budget : {UINT64_MAX, std::uint64_t{uci_tokens / 4}}) {
      CAPTURE(budget);
      const auto serial = uci_message(uci_header + joined(bad_uci), budget, 1);
      CHECK(contains(serial, budget == UINT64_MAX ? "a word id" : "the memory budget"));
      CHECK(uci_message(uci_header + joined(bad_uci), budget, threads) == serial);
    }
    for (const std::uint64_t budget : {UINT64_MAX, std::uint64_t{docword_tokens / 4}}) {
      CAPTURE(budget);
      const auto serial = docword_message(joined(bad_docword), budget, 1);
      CHECK(contains(serial, budget == UINT64_MAX ? "count" : "the memory budget"));
      CHECK(docword_message(joined(bad_docword), budget, threads) == serial);
    }
    const auto serial = uci_message(fewer, UINT64_MAX, 1);
    CHECK(contains(serial, "no more"));
    CHECK(uci_message(fewer, UINT64_MAX, threads) == serial);
    write_text(dir / "docword.txt", uci_header + joined(uci_lines));
    write_text(dir / "d.txt", joined(docword_lines));
  }
}

TEST_CASE("docword and text files of several read blocks: every document in order, errors at their true lines") {
  TempDir dir;
  write_text(dir / "vocab.txt", kVocab);
  // About 3.5 MiB of each: several of the streamed readers' blocks.
  constexpr std::uint64_t docs = 250'000;
  std::string docword, text;
  for (std::uint64_t i = 0; i < docs; ++i) {
    docword += std::to_string(i) + " " + std::to_string(i % 4) + ":2 " + std::to_string((i + 1) % 4) + ":1\n";
    text += (i % 2 ? "the quick brown fox\n" : "jumps over the lazy dog\n");
  }
  write_text(dir / "d.txt", docword);
  write_text(dir / "t.txt", text);
  const Corpus c = read_doc_word_counts(dir / "d.txt", dir / "vocab.txt");
  REQUIRE(c.docs() == docs);
  CHECK(c.tokens() == 3 * docs);
  CHECK(c.doc_ids[docs - 1] == docs - 1);
  CHECK(c.doc(docs - 1)[0] == (docs - 1) % 4);
  TokenizerOptions words;
  words.min_count = 1;
  words.stop_words = {};
  const Corpus t = read_text_lines(dir / "t.txt", words);
  REQUIRE(t.docs() == docs);
  CHECK(t.tokens() == 4 * docs + docs / 2);  // 5 words on even lines, 4 on odd

  const std::string bad = gyre::test::with_line_inserted(docword, 200000, "7 9:1");
  write_text(dir / "bad.txt", bad);
  const auto e = catch_input_error([&] { read_doc_word_counts(dir / "bad.txt", dir / "vocab.txt"); });
  REQUIRE(e.thrown);
  CHECK(e.line == 200001);
  // The token budget counts on across blocks.
  const auto budget = catch_input_error([&] { read_doc_word_counts(dir / "d.txt", dir / "vocab.txt", 3 * docs - 1); });
  REQUIRE(budget.thrown);
  CHECK(budget.line == docs);
}

TEST_CASE("docword and text corpora from a pipe") {
  TempDir dir;
  write_text(dir / "vocab.txt", kVocab);
  {
    const gyre::test::FifoInput pipe(dir / "d.pipe", "3 0:2 2:1\n5 1:1\n");
    const Corpus c = read_doc_word_counts(pipe.path(), dir / "vocab.txt");
    CHECK(c.doc_ids == std::vector<std::uint64_t>{3, 5});
    CHECK(c.tokens() == 4);
  }
  {
    const gyre::test::FifoInput pipe(dir / "t.pipe", "the quick fox\nthe lazy fox\n");
    TokenizerOptions words;
    const Corpus c = read_text_lines(pipe.path(), words);
    CHECK(c.docs() == 2);
    CHECK(c.tokens() == 6);
  }
  {
    const gyre::test::FifoInput pipe(dir / "u.pipe", "2\n4\n2\n1 2 1\n2 4 3\n");
    const Corpus c = read_uci(pipe.path(), dir / "vocab.txt");
    CHECK(c.docs() == 2);
    CHECK(c.tokens() == 4);
  }
  {
    // Told its format, a pipe is read once; left to guess, it is refused before anything is read.
    const gyre::test::FifoInput pipe(dir / "auto.pipe", "1 0:1\n");
    CorpusOptions options;
    options.vocab = dir / "vocab.txt";
    const auto e = catch_input_error([&] { load_corpus(pipe.path(), options); });
    CHECK(contains(e.message, "--format"));
    options.format = CorpusFormat::docword;
    CHECK(load_corpus(pipe.path(), options).tokens() == 1);
  }
}
