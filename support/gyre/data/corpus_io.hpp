// gyre/data/corpus_io.hpp — corpus readers (UCI bag-of-words, raw text lines, LightLDA doc word:count) and the UCI writer.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <unordered_set>
#include <vector>

#include "gyre/data/corpus.hpp"

namespace gyre::data {

// Every reader throws gyre::InputError naming file, line and what was expected; documents that
// end up without tokens are dropped, the others keep their 0-based index in the input as doc id.

// How raw text becomes tokens: bytes are lowercased (ASCII only) and split on every byte that
// is not an ASCII letter [a-zA-Z], so digits, punctuation and all non-ASCII bytes (UTF-8
// included) separate words; "don't" gives "don" and "t". A token is kept if it has at least
// min_length letters, is not a stop word (compared after lowercasing) and occurs at least
// min_count times in the whole file.
struct TokenizerOptions {
  std::unordered_set<std::string> stop_words;  // lowercase
  std::uint64_t min_count = 1;
  std::size_t min_length = 2;
};

// A small standard English list (articles, pronouns, auxiliaries, prepositions, conjunctions).
std::vector<std::string> default_stop_words();

// One stop word per line, lowercased; blank lines and lines starting with '#' are skipped.
std::vector<std::string> read_stop_words(const std::filesystem::path& file);

// One word per line, line i (1-based) = word id i-1; surrounding blanks and '\r' are ignored,
// an empty line is an error (it would be a word nobody can name).
std::vector<std::string> read_vocab(const std::filesystem::path& file);
void write_vocab(const std::filesystem::path& file, const std::vector<std::string>& vocab);  // atomic

// The same for any list of names (feature names): `what` names one entry in errors ("a word").
std::vector<std::string> read_names(const std::filesystem::path& file, const std::string& what);

// UCI bag-of-words: docword has three header lines D, W, NNZ, then NNZ lines "docID wordID
// count" (1-based ids, in any order; a document's lines are kept in input order); vocab has W
// lines. Doc id d becomes doc_ids entry d-1; documents without lines are dropped. A file whose
// counts add up to more than `max_tokens` is refused at the line that crosses it, before the
// tokens are laid out (a count of 10^9 on one line is a few bytes of file).
// Parsed on `threads` line-aligned chunks at once, with the serial reader's corpus and first error.
Corpus read_uci(const std::filesystem::path& docword, const std::filesystem::path& vocab,
                std::uint64_t max_tokens = UINT64_MAX, std::size_t threads = 1);

// One document per line of raw text, tokenized as above. Word ids go by descending corpus
// frequency, ties alphabetically, so the same text always gives the same ids. A document's doc
// id is its 0-based line index; blank lines count. A file with no token left is an error.
// `file` may be a directory: its regular files (not hidden ones), in name order, are read as
// one text, each file's last line ending with it.
Corpus read_text_lines(const std::filesystem::path& file, const TokenizerOptions& opts, std::size_t threads = 1);

// LightLDA's libsvm-like form: lines "docid word:count word:count ...", docid a non-negative
// integer kept as the doc id, word a 0-based line index into vocab. Blank lines are skipped;
// a document id without pairs is an error (an empty document). `max_tokens` as for read_uci.
Corpus read_doc_word_counts(const std::filesystem::path& file, const std::filesystem::path& vocab,
                            std::uint64_t max_tokens = UINT64_MAX, std::size_t threads = 1);

enum class CorpusFormat { automatic, uci, text, docword };

struct CorpusOptions {
  CorpusFormat format = CorpusFormat::automatic;
  std::filesystem::path vocab;  // empty: found next to the input (uci, docword)
  TokenizerOptions tokenizer;   // text only
  std::uint64_t max_tokens = UINT64_MAX;  // uci, docword: refuse a corpus with more tokens
  std::size_t threads = 1;                // lines parsed on this many threads
};

// The one entry point apps use. Automatic detection, in order:
//  - a directory with manifest.json: a corpus partition, all shards merged back by doc id;
//  - a directory with docword.txt (+ vocab.txt): UCI;
//  - a file named docword.NAME.txt: UCI with vocab.NAME.txt beside it (docword.txt: vocab.txt);
//  - a file whose first non-blank line looks like "docid word:count ...": docword format, with
//    options.vocab or vocab.txt in the same directory;
//  - any other file: text lines;
//  - with CorpusFormat::text, a directory of text files (see read_text_lines).
// options.vocab, when given, replaces the vocabulary found by these rules (not for text).
// A missing input or vocabulary throws InputError naming what is missing and where it looked.
Corpus load_corpus(const std::filesystem::path& path, const CorpusOptions& options = {});

// Whether load_corpus(path, options) reads raw text lines, whose words are named by the text
// itself, rather than word ids into a vocabulary file (uci, docword, a partition): by the same
// rules, looking at the first non-blank line only. A consumer of a trained model maps text by
// word and holds id-based input to the model's vocabulary.
bool reads_as_text(const std::filesystem::path& path, const CorpusOptions& options = {});

// DIR/docword.txt and DIR/vocab.txt (DIR is created), each written atomically. Documents get
// 1-based ids in corpus order (the corpus's doc_ids are not kept); a document's words are
// aggregated into counts, by ascending word id.
void write_uci(const std::filesystem::path& dir, const Corpus& corpus);

}  // namespace gyre::data
