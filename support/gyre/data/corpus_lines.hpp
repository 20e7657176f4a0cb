// gyre/data/corpus_lines.hpp — the corpus formats' line parsers, for a whole file or one piece of it (internal to lib/, not installed).
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "gyre/data/byte_ranges.hpp"
#include "gyre/data/corpus.hpp"
#include "gyre/data/corpus_io.hpp"

namespace gyre::data {


// A corpus file resolved by load_corpus's rules: which reader, and its vocabulary file.
struct CorpusSource {
  enum class Kind { partition, uci, text, docword };
  Kind kind = Kind::text;
  std::filesystem::path file;   // the partition directory, or the file read
  std::filesystem::path vocab;  // uci and docword
};
CorpusSource corpus_source(const std::filesystem::path& path, const CorpusOptions& options);

// Where a piece of a counts file starts: its lines, entries (UCI) and tokens before it, from which
// its lines are numbered and its running totals checked against their limits. A piece parsed
// before its position is known counts from where it starts (its own totals past a limit put the
// file's past it too). The parsers return what their piece held in the same terms.
struct CorpusPosition {
  std::uint64_t lines = 0;
  std::uint64_t entries = 0;
  std::uint64_t tokens = 0;
  CorpusPosition& operator+=(const CorpusPosition& o) {
    lines += o.lines;
    entries += o.entries;
    tokens += o.tokens;
    return *this;
  }
};

// The vocabulary file of `data` (uci, docword), or an InputError naming both when it is missing.
std::vector<std::string> read_vocab_of(const std::filesystem::path& vocab_file, const std::filesystem::path& data);

// The three header lines of a UCI docword file, and where its entries begin.
struct UciHeader {
  std::uint64_t docs = 0;     // D
  std::uint32_t words = 0;    // W
  std::uint64_t entries = 0;  // NNZ
  std::uint64_t body_begin = 0;
};
UciHeader read_uci_header(const std::filesystem::path& docword);
// The same from a text that starts the file: nothing when it is cut (`whole` false) before the
// third line ends.
std::optional<UciHeader> parse_uci_header(const std::filesystem::path& docword, std::string_view text, bool whole);
inline constexpr std::uint64_t kUciHeaderLines = 3;
// W against the vocabulary's words (line 2), and the whole file's entries against NNZ (line 3).
void check_uci_vocab(const std::filesystem::path& docword, const UciHeader& header, std::size_t vocab_words,
                     const std::filesystem::path& vocab_file);
void check_uci_entries(const std::filesystem::path& docword, const UciHeader& header, std::uint64_t entries);

struct UciEntry {
  std::uint64_t doc;  // 0-based
  std::uint32_t word;  // 0-based
  std::uint32_t count;
};

// The entry lines of `text`, appended to `out`, with the NNZ bound and the token budget counted
// from `at`.
// On `threads` line-aligned chunks at once (TBB tasks), with the serial loop's entries, order
// and first error.
CorpusPosition parse_uci_entries(const std::filesystem::path& docword, const UciHeader& header, std::string_view text,
                                 CorpusPosition at, std::uint64_t max_tokens, std::vector<UciEntry>& out,
                                 std::size_t threads = 1);

// The documents of UCI entries: grouped by document (stably: a document's words keep their
// order), counts expanded into tokens, with `vocab`.
Corpus corpus_from_entries(std::vector<UciEntry>& entries, std::vector<std::string> vocab);

// "docid word:count ..." lines of `text`, appended to `out` as documents; words are below
// `words`, the size of `vocab_file`'s vocabulary; the token budget counted from `at`.
// On `threads` chunks at once, as parse_uci_entries.
CorpusPosition parse_doc_word_lines(const std::filesystem::path& file, const std::filesystem::path& vocab_file,
                                    std::uint64_t words, std::string_view text, CorpusPosition at,
                                    std::uint64_t max_tokens, Corpus& out, std::size_t threads = 1);
// A docword file's whole count of documents: none is an error.
void check_doc_word_documents(const std::filesystem::path& file, std::uint64_t docs);

// What the tokenizer keeps of raw text, and lowercases: ASCII letters only.
inline bool is_ascii_letter(unsigned char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

// Raw text lines tokenised with provisional word ids (in order of first appearance), before the
// whole file's counts decide which words stay and their ids.
struct TextTokens {
  std::vector<std::string> spelled;    // provisional id → word
  std::vector<std::uint64_t> counts;   // provisional id → occurrences
  std::vector<std::uint32_t> tokens;   // every kept token's provisional id
  std::vector<std::uint64_t> line_end;  // per line: the end of its tokens
  std::unordered_map<std::string, std::uint32_t> ids;  // word → provisional id
};
// Appends the lines of `text`, tokenised on `threads` line-aligned chunks at once (TBB tasks):
// the same tokens, ids and lines as one thread gives.
void tokenize_text_lines(std::string_view text, const TokenizerOptions& options, TextTokens& into,
                         std::size_t threads = 1);

// The vocabulary of a text file from its words' counts: those seen at least min_count times, by
// descending count, ties alphabetically. Throws the "no word" InputError naming `file` when none
// is left (`empty_file` words it).
std::vector<std::string> text_vocabulary(const std::filesystem::path& file, const std::vector<std::string>& spelled,
                                         const std::vector<std::uint64_t>& counts, const TokenizerOptions& options,
                                         bool empty_file);

// The documents of tokenised lines, each word mapped through `final_id` (kDroppedWord: dropped);
// line i is document first_doc + i, and a line with no token left is no document.
inline constexpr std::uint32_t kDroppedWord = UINT32_MAX;
// Each spelled word's id in `vocab`, or kDroppedWord.
std::vector<std::uint32_t> final_word_ids(const std::vector<std::string>& spelled, const std::vector<std::string>& vocab);
void append_text_documents(const TextTokens& tokens, const std::vector<std::uint32_t>& final_id,
                           std::uint64_t first_doc, Corpus& out);

}  // namespace gyre::data
