// gyre/data/corpus_io.cpp — corpus readers with line-exact errors, format detection, and the UCI writer.
#include "gyre/data/corpus_io.hpp"

#include <algorithm>
#include <charconv>
#include <numeric>
#include <stdexcept>
#include <string_view>
#include <system_error>
#include <unordered_map>

#include "gyre/base/input_error.hpp"
#include "gyre/base/output_file.hpp"
#include "gyre/data/byte_ranges.hpp"
#include "gyre/data/corpus_lines.hpp"
#include "gyre/data/corpus_partition.hpp"
#include "gyre/data/manifest.hpp"
#include "gyre/data/ratings.hpp"
#include "gyre/data/text_input.hpp"

namespace gyre::data {
namespace {

namespace fs = std::filesystem;

// The first line with anything but blanks on it, or an empty view.
std::string_view first_content_line(std::string_view text) {
  LineCursor lines(text);
  std::string_view line;
  while (lines.next(line))
    if (!trim_blanks(line).empty()) return line;
  return {};
}

// ^\d+(\s+\d+:\d+)+ — the start of a LightLDA "docid word:count ..." line.
bool looks_like_doc_word_counts(std::string_view line) {
  std::size_t i = 0;
  const auto digits = [&] {
    const std::size_t start = i;
    while (i < line.size() && line[i] >= '0' && line[i] <= '9') ++i;
    return i > start;
  };
  if (!digits()) return false;
  const std::size_t start = i;
  while (i < line.size() && is_blank(line[i])) ++i;
  if (i == start) return false;
  if (!digits() || i == line.size() || line[i] != ':') return false;
  ++i;
  return digits();
}

}  // namespace

std::vector<std::string> default_stop_words() {
  // The usual short list (in the spirit of the SMART and NLTK lists, trimmed to the words
  // that dominate any English corpus); larger lists belong in a file.
  return {"a",     "about", "above",   "after", "again", "against", "all",   "am",    "an",    "and",   "any",
          "are",   "as",    "at",      "be",    "because", "been",  "before", "being", "below", "between", "both",
          "but",   "by",    "can",     "could", "did",   "do",      "does",  "doing", "down",  "during", "each",
          "few",   "for",   "from",    "further", "had", "has",     "have",  "having", "he",   "her",   "here",
          "hers",  "herself", "him",   "himself", "his", "how",     "i",     "if",    "in",    "into",  "is",
          "it",    "its",   "itself",  "just",  "me",    "more",    "most",  "my",    "myself", "no",   "nor",
          "not",   "now",   "of",      "off",   "on",    "once",    "only",  "or",    "other", "our",   "ours",
          "ourselves", "out", "over",  "own",   "same",  "she",     "should", "so",   "some",  "such",  "than",
          "that",  "the",   "their",   "theirs", "them", "themselves", "then", "there", "these", "they", "this",
          "those", "through", "to",    "too",   "under", "until",   "up",    "very",  "was",   "we",    "were",
          "what",  "when",  "where",   "which", "while", "who",     "whom",  "why",   "will",  "with",  "would",
          "you",   "your",  "yours",   "yourself", "yourselves"};
}

std::vector<std::string> read_stop_words(const fs::path& file) {
  const std::string text = slurp(file);
  LineCursor lines(text);
  std::string_view line;
  std::vector<std::string> words;
  while (lines.next(line)) {
    line = trim_blanks(line);
    if (line.empty() || line.front() == '#') continue;
    std::string word(line);
    for (char& ch : word) ch = static_cast<char>(is_ascii_letter(static_cast<unsigned char>(ch)) ? ch | 0x20 : ch);
    words.push_back(std::move(word));
  }
  return words;
}

std::vector<std::string> read_vocab(const fs::path& file) { return read_names(file, "a word"); }

std::vector<std::string> read_names(const fs::path& file, const std::string& what) {
  const std::string text = slurp(file);
  LineCursor lines(text);
  std::string_view line;
  std::vector<std::string> vocab;
  while (lines.next(line)) {
    line = trim_blanks(line);
    if (line.empty()) throw InputError(file, lines.number(), what + " (one per line)", "an empty line");
    vocab.emplace_back(line);
  }
  if (vocab.size() > kMaxId + 1)
    throw InputError(file, 0, "at most " + std::to_string(kMaxId + 1) + " lines", std::to_string(vocab.size()));
  return vocab;
}

void write_vocab(const fs::path& file, const std::vector<std::string>& vocab) {
  OutputFile out(file);
  std::string buffer;
  for (const std::string& w : vocab) buffer.append(w).push_back('\n');
  out.stream().write(buffer.data(), static_cast<std::streamsize>(buffer.size()));
  out.commit();
}

Corpus read_uci(const fs::path& docword, const fs::path& vocab_file, std::uint64_t max_tokens, std::size_t threads) {
  if (const auto whole = read_if_stream(docword)) {  // a pipe: read once, header and all
    const UciHeader header = *parse_uci_header(docword, *whole, true);
    std::vector<std::string> vocab = read_vocab_of(vocab_file, docword);
    check_uci_vocab(docword, header, vocab.size(), vocab_file);
    std::vector<UciEntry> entries;
    parse_uci_entries(docword, header, std::string_view(*whole).substr(header.body_begin),
                      CorpusPosition{kUciHeaderLines, 0, 0}, max_tokens, entries, threads);
    check_uci_entries(docword, header, entries.size());
    return corpus_from_entries(entries, std::move(vocab));
  }
  const UciHeader header = read_uci_header(docword);
  std::vector<std::string> vocab = read_vocab_of(vocab_file, docword);
  check_uci_vocab(docword, header, vocab.size(), vocab_file);
  // Streamed a block at a time: a UCI corpus (PubMed: 7 GB of text) is far larger than the
  // entries parsed from it.
  std::error_code ec;
  const std::uint64_t size = fs::file_size(docword, ec);
  std::vector<UciEntry> entries;
  // An entry line takes 6 bytes at least ("1 1 1\n"), so the file's size bounds the
  // reservation that the header's NNZ asks for.
  entries.reserve(static_cast<std::size_t>(std::min(header.entries, size / 6 + 1)));
  CorpusPosition at{kUciHeaderLines, 0, 0};
  read_split_blocks(docword, {header.body_begin, std::max(size, header.body_begin)}, kRangeBlockBytes * threads,
                    [&](std::string_view block) {
                      at += parse_uci_entries(docword, header, block, at, max_tokens, entries, threads);
                    });
  check_uci_entries(docword, header, entries.size());
  return corpus_from_entries(entries, std::move(vocab));
}

Corpus read_text_lines(const fs::path& file, const TokenizerOptions& opts, std::size_t threads) {
  TextTokens tokens;
  bool empty = true;
  std::error_code ec;
  // A missing or unreadable file is the block reader's error, as for any reader of one file.
  const std::vector<InputFile> parts = fs::is_directory(file, ec) ? list_input_files(file) : std::vector<InputFile>{{file, 0}};
  const auto tokenize = [&](std::string_view block) {
    tokenize_text_lines(block, opts, tokens, threads);
    empty = false;
  };
  // Each file read in blocks through one buffer, not mapped: its pages would count against the process.
  for (const InputFile& part : parts) {
    if (const auto whole = read_if_stream(part.path)) {  // a pipe: read once
      if (!whole->empty()) tokenize(*whole);
      continue;
    }
    read_split_blocks(part.path, {0, kToTheEnd}, kRangeBlockBytes * threads, tokenize);
  }
  Corpus c;
  c.vocab = text_vocabulary(file, tokens.spelled, tokens.counts, opts, empty);
  c.words.reserve(tokens.tokens.size());
  append_text_documents(tokens, final_word_ids(tokens.spelled, c.vocab), 0, c);
  return c;
}

Corpus read_doc_word_counts(const fs::path& file, const fs::path& vocab_file, std::uint64_t max_tokens,
                            std::size_t threads) {
  Corpus c;
  c.vocab = read_vocab_of(vocab_file, file);
  CorpusPosition at;
  const auto parse = [&](std::string_view block) {
    at += parse_doc_word_lines(file, vocab_file, c.vocab.size(), block, at, max_tokens, c, threads);
  };
  if (const auto whole = read_if_stream(file)) parse(*whole);  // a pipe: read once
  else read_split_blocks(file, {0, kToTheEnd}, kRangeBlockBytes * threads, parse);
  check_doc_word_documents(file, c.docs());
  return c;
}

Corpus load_corpus(const fs::path& path, const CorpusOptions& options) {
  const CorpusSource source = corpus_source(path, options);
  switch (source.kind) {
    case CorpusSource::Kind::partition:
      return merge_corpus_shards(read_corpus_partition(source.file));
    case CorpusSource::Kind::uci:
      return read_uci(source.file, source.vocab, options.max_tokens, options.threads);
    case CorpusSource::Kind::text:
      return read_text_lines(source.file, options.tokenizer, options.threads);
    case CorpusSource::Kind::docword:
      break;
  }
  return read_doc_word_counts(source.file, source.vocab, options.max_tokens, options.threads);
}

bool reads_as_text(const fs::path& path, const CorpusOptions& options) {
  std::error_code ec;
  if (options.format != CorpusFormat::automatic) return options.format == CorpusFormat::text;
  if (fs::is_directory(path, ec)) return false;
  const std::string name = path.filename().string();
  if (name.starts_with("docword.") && name.ends_with(".txt")) return false;
  // Its first lines, once read to tell the format, would be gone for the reader.
  if (is_stream(path))
    throw InputError(path, 0, "a regular file, or --format uci|docword|text for a pipe", "a pipe or device");
  // The first line with content decides, read from the start of the file, not the whole of it.
  return !parse_file_start(path, [](std::string_view text, bool whole) -> std::optional<bool> {
            const std::string_view line = first_content_line(text);
            if (line.empty() && !whole) return std::nullopt;
            return looks_like_doc_word_counts(line);
          }).first;
}

void write_uci(const fs::path& dir, const Corpus& corpus) {
  fs::create_directories(dir);
  // NNZ heads the file, so a first pass counts the distinct words per document.
  std::vector<std::uint32_t> sorted;
  const auto sorted_doc = [&](std::uint64_t d) {
    const auto words = corpus.doc(d);
    sorted.assign(words.begin(), words.end());
    std::sort(sorted.begin(), sorted.end());
  };
  std::uint64_t nnz = 0;
  for (std::uint64_t d = 0; d < corpus.docs(); ++d) {
    sorted_doc(d);
    nnz += static_cast<std::uint64_t>(std::unique(sorted.begin(), sorted.end()) - sorted.begin());
  }

  OutputFile out(dir / "docword.txt");
  constexpr std::size_t kFlushAt = std::size_t{1} << 20;
  std::string buffer;
  buffer.reserve(kFlushAt + 64);
  char field[24];
  const auto append = [&](std::uint64_t value, char after) {
    const auto [end, ec] = std::to_chars(field, field + sizeof field, value);
    buffer.append(field, end).push_back(after);
  };
  append(corpus.docs(), '\n');
  append(corpus.vocab_size(), '\n');
  append(nnz, '\n');
  for (std::uint64_t d = 0; d < corpus.docs(); ++d) {
    sorted_doc(d);
    for (std::size_t i = 0; i < sorted.size();) {
      std::size_t j = i;
      while (j < sorted.size() && sorted[j] == sorted[i]) ++j;
      append(d + 1, ' ');
      append(std::uint64_t{sorted[i]} + 1, ' ');
      append(j - i, '\n');
      i = j;
    }
    if (buffer.size() >= kFlushAt) {
      out.stream().write(buffer.data(), static_cast<std::streamsize>(buffer.size()));
      buffer.clear();
    }
  }
  out.stream().write(buffer.data(), static_cast<std::streamsize>(buffer.size()));
  write_vocab(dir / "vocab.txt", corpus.vocab);
  out.commit();
}

}  // namespace gyre::data
