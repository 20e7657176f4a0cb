// gyre/data/corpus_io.cpp — corpus readers with line-exact errors, format detection, and the UCI writer.
#include "gyre/data/corpus_io.hpp"

#include <algorithm>
#include <charconv>
#include <numeric>
#include <stdexcept>
#include <string_view>
#include <system_error>
#include <unordered_map>

#include "gyre/base/output_file.hpp"
#include "gyre/base/input_error.hpp"
#include "gyre/data/corpus_partition.hpp"
#include "gyre/data/manifest.hpp"
#include "gyre/data/ratings.hpp"
#include "gyre/data/text_input.hpp"

namespace gyre::data {
namespace {

namespace fs = std::filesystem;

// A single bag-of-words count is bounded like an id: it becomes that many tokens in memory.
constexpr std::uint64_t kMaxCount = kMaxId;

// The running token total of a counts file, refused at the line that takes it past the limit.
struct TokenBudget {
  const fs::path& file;
  std::uint64_t limit;
  std::uint64_t total = 0;
  void add(std::size_t line, std::uint64_t count) {
    total += count;
    if (total > limit)
      throw InputError(file, line, "a corpus of at most " + std::to_string(limit) + " tokens (the memory budget)",
                       std::to_string(total) + " tokens up to this line");
  }
};

std::string range(std::uint64_t low, std::uint64_t high) {
  return "[" + std::to_string(low) + ", " + std::to_string(high) + "]";
}

// A parsed token's number, or an InputError saying what the field should have been.
std::uint64_t number(const fs::path& file, std::size_t line, std::string_view token, const std::string& what,
                     std::uint64_t low, std::uint64_t high) {
  std::uint64_t value = 0;
  if (!parse_decimal(token, value) || value < low || value > high)
    throw InputError(file, line, what + " in " + range(low, high), std::string(token));
  return value;
}

void require_vocab_file(const fs::path& vocab, const fs::path& data) {
  std::error_code ec;
  if (!fs::is_regular_file(vocab, ec))
    throw InputError(vocab, 0, "the vocabulary file (one word per line) for " + data.string(),
                     fs::exists(vocab, ec) ? "not a regular file" : "no such file");
}

bool is_letter(unsigned char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

// Calls emit(token) for every lowercased run of ASCII letters in the line.
template <typename Emit>
void tokenize(std::string_view line, std::string& token, Emit&& emit) {
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && !is_letter(static_cast<unsigned char>(line[i]))) ++i;
    token.clear();
    while (i < line.size() && is_letter(static_cast<unsigned char>(line[i])))
      token.push_back(static_cast<char>(line[i++] | 0x20));  // ASCII letters: bit 5 is lowercase
    if (!token.empty()) emit(token);
  }
}

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

struct Entry {
  std::uint64_t doc;  // 0-based
  std::uint32_t word;  // 0-based
  std::uint32_t count;
};

// Groups entries by document (stable, so a document's words stay in input order) and expands
// counts into tokens.
Corpus build_from_entries(std::vector<Entry>& entries, std::vector<std::string> vocab) {
  if (!std::is_sorted(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) { return a.doc < b.doc; }))
    std::stable_sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) { return a.doc < b.doc; });
  Corpus c;
  c.vocab = std::move(vocab);
  std::uint64_t tokens = 0;
  for (const Entry& e : entries) tokens += e.count;
  c.words.reserve(tokens);
  for (std::size_t i = 0; i < entries.size();) {
    const std::uint64_t doc = entries[i].doc;
    for (; i < entries.size() && entries[i].doc == doc; ++i) c.words.insert(c.words.end(), entries[i].count, entries[i].word);
    c.doc_begin.push_back(c.words.size());
    c.doc_ids.push_back(doc);
  }
  return c;
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
    for (char& ch : word) ch = static_cast<char>(is_letter(static_cast<unsigned char>(ch)) ? ch | 0x20 : ch);
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

Corpus read_uci(const fs::path& docword, const fs::path& vocab_file, std::uint64_t max_tokens) {
  // Streamed: a UCI corpus (PubMed: 7 GB of text) is far larger than the entries parsed from it.
  LineReader lines(docword);
  require_vocab_file(vocab_file, docword);
  std::string_view line, f[4];

  // Header: D, W, NNZ, one per line.
  static constexpr const char* kHeader[3] = {"the number of documents D", "the number of words W",
                                             "the number of entries NNZ"};
  std::uint64_t header[3] = {0, 0, 0};
  for (int h = 0; h < 3; ++h) {
    if (!lines.next(line))
      throw InputError(docword, 0, std::string("a UCI header line with ") + kHeader[h], "end of file");
    if (split_blanks(line, f, 1) != 1)
      throw InputError(docword, lines.number(), std::string("a UCI header line with ") + kHeader[h], std::string(line));
    header[h] = number(docword, lines.number(), f[0], std::string("a UCI header line with ") + kHeader[h], 0,
                       h == 1 ? kMaxId + 1 : UINT64_MAX);
  }
  const std::uint64_t docs = header[0], declared = header[2];
  const auto words = static_cast<std::uint32_t>(header[1]);

  std::vector<std::string> vocab = read_vocab(vocab_file);
  if (vocab.size() != words)
    throw InputError(docword, 2,
                     "W equal to the " + std::to_string(vocab.size()) + " words of " + vocab_file.string(),
                     std::to_string(words));

  TokenBudget tokens{docword, max_tokens};
  std::vector<Entry> entries;
  // An entry line takes 6 bytes at least ("1 1 1\n"), so the file's size bounds the
  // reservation that the header's NNZ asks for.
  entries.reserve(static_cast<std::size_t>(std::min(declared, lines.file_size() / 6 + 1)));
  while (lines.next(line)) {
    const std::size_t at = lines.number();
    const std::size_t n = split_blanks(line, f, 3);
    if (n == 0) continue;
    if (n != 3) throw InputError(docword, at, "3 fields \"docID wordID count\"", std::string(line));
    if (entries.size() == declared)
      throw InputError(docword, at, std::to_string(declared) + " entries as declared by NNZ on line 3, no more",
                       std::string(line));
    const std::uint64_t doc = number(docword, at, f[0], "a document id", 1, docs);
    const std::uint64_t word = number(docword, at, f[1], "a word id", 1, words);
    const std::uint64_t count = number(docword, at, f[2], "a positive integer count", 1, kMaxCount);
    tokens.add(at, count);
    entries.push_back({doc - 1, static_cast<std::uint32_t>(word - 1), static_cast<std::uint32_t>(count)});
  }
  if (entries.size() != declared)
    throw InputError(docword, 3, std::to_string(declared) + " entries as declared by NNZ",
                     std::to_string(entries.size()) + " entries");
  if (entries.empty()) throw InputError(docword, 3, "at least one entry", "NNZ = 0");
  return build_from_entries(entries, std::move(vocab));
}

Corpus read_text_lines(const fs::path& file, const TokenizerOptions& opts) {
  const std::string text = slurp(file);
  // First pass: provisional ids in order of first appearance; the final ids need the counts.
  std::unordered_map<std::string, std::uint32_t> provisional;
  std::vector<std::string> spelled;
  std::vector<std::uint64_t> counts;
  std::vector<std::uint32_t> tokens;
  std::vector<std::uint64_t> line_end;  // per line: end of its tokens
  LineCursor lines(text);
  std::string_view line;
  std::string token;
  while (lines.next(line)) {
    tokenize(line, token, [&](const std::string& t) {
      if (t.size() < opts.min_length || opts.stop_words.contains(t)) return;
      const auto [it, added] = provisional.try_emplace(t, static_cast<std::uint32_t>(spelled.size()));
      if (added) {
        spelled.push_back(t);
        counts.push_back(0);
      }
      ++counts[it->second];
      tokens.push_back(it->second);
    });
    line_end.push_back(tokens.size());
  }

  std::vector<std::uint32_t> kept;
  for (std::uint32_t p = 0; p < spelled.size(); ++p)
    if (counts[p] >= opts.min_count) kept.push_back(p);
  if (kept.empty()) {
    std::string expected = "at least one word of " + std::to_string(std::max<std::size_t>(opts.min_length, 1)) +
                           "+ ASCII letters that is not a stop word";
    if (opts.min_count > 1) expected += " and occurs at least " + std::to_string(opts.min_count) + " times";
    throw InputError(file, 0, expected, text.empty() ? "an empty file" : "no such word");
  }
  std::sort(kept.begin(), kept.end(), [&](std::uint32_t a, std::uint32_t b) {
    return counts[a] != counts[b] ? counts[a] > counts[b] : spelled[a] < spelled[b];
  });
  constexpr std::uint32_t kDropped = UINT32_MAX;
  std::vector<std::uint32_t> final_id(spelled.size(), kDropped);
  Corpus c;
  c.vocab.reserve(kept.size());
  for (std::uint32_t id = 0; id < kept.size(); ++id) {
    final_id[kept[id]] = id;
    c.vocab.push_back(std::move(spelled[kept[id]]));
  }

  c.words.reserve(tokens.size());
  std::uint64_t begin = 0;
  for (std::uint64_t doc = 0; doc < line_end.size(); ++doc) {
    for (std::uint64_t t = begin; t < line_end[doc]; ++t)
      if (const std::uint32_t id = final_id[tokens[t]]; id != kDropped) c.words.push_back(id);
    begin = line_end[doc];
    if (c.words.size() == c.doc_begin.back()) continue;  // nothing left: the document is dropped
    c.doc_begin.push_back(c.words.size());
    c.doc_ids.push_back(doc);
  }
  return c;
}

Corpus read_doc_word_counts(const fs::path& file, const fs::path& vocab_file, std::uint64_t max_tokens) {
  const std::string text = slurp(file);
  TokenBudget tokens{file, max_tokens};
  require_vocab_file(vocab_file, file);
  Corpus c;
  c.vocab = read_vocab(vocab_file);
  const std::uint64_t words = c.vocab.size();
  const std::string word_id = "a word id (0-based line of " + vocab_file.string() + ")";
  LineCursor lines(text);
  std::string_view line;
  while (lines.next(line)) {
    const std::size_t at = lines.number();
    std::size_t i = 0;
    const auto next_field = [&] {
      while (i < line.size() && is_blank(line[i])) ++i;
      const std::size_t start = i;
      while (i < line.size() && !is_blank(line[i])) ++i;
      return line.substr(start, i - start);
    };
    const std::string_view doc_field = next_field();
    if (doc_field.empty()) continue;
    const std::uint64_t doc = number(file, at, doc_field, "a document id", 0, UINT64_MAX);
    std::size_t pairs = 0;
    for (std::string_view pair = next_field(); !pair.empty(); pair = next_field(), ++pairs) {
      const std::size_t colon = pair.find(':');
      if (colon == std::string_view::npos)
        throw InputError(file, at, "a \"word:count\" pair", std::string(pair));
      if (words == 0) throw InputError(file, at, word_id + ", but the vocabulary is empty", std::string(pair));
      const std::uint64_t word = number(file, at, pair.substr(0, colon), word_id, 0, words - 1);
      const std::uint64_t count =
          number(file, at, pair.substr(colon + 1), "a positive integer count in \"word:count\"", 1, kMaxCount);
      tokens.add(at, count);
      c.words.insert(c.words.end(), count, static_cast<std::uint32_t>(word));
    }
    if (pairs == 0)
      throw InputError(file, at, "\"word:count\" pairs after the document id (an empty document)", std::string(line));
    c.doc_begin.push_back(c.words.size());
    c.doc_ids.push_back(doc);
  }
  if (c.docs() == 0) throw InputError(file, 0, "at least one line \"docid word:count ...\"", "no documents");
  return c;
}

Corpus load_corpus(const fs::path& path, const CorpusOptions& options) {
  std::error_code ec;
  const bool is_dir = fs::is_directory(path, ec);
  const auto vocab_or = [&](const fs::path& found) { return options.vocab.empty() ? found : options.vocab; };
  if (options.format == CorpusFormat::text && !options.vocab.empty())
    throw std::invalid_argument("a vocabulary file applies to uci and docword input, not to text");

  if (is_dir) {
    if (options.format == CorpusFormat::text || options.format == CorpusFormat::docword)
      throw InputError(path, 0, options.format == CorpusFormat::text ? "a text file" : "a docword file", "a directory");
    if (options.format == CorpusFormat::automatic && fs::exists(path / kManifestName, ec))
      return merge_corpus_shards(read_corpus_partition(path));
    if (fs::exists(path / "docword.txt", ec)) return read_uci(path / "docword.txt", vocab_or(path / "vocab.txt"), options.max_tokens);
    throw InputError(path, 0,
                     options.format == CorpusFormat::uci
                         ? "docword.txt and vocab.txt in this directory"
                         : "a corpus partition (manifest.json) or docword.txt and vocab.txt in this directory",
                     options.format == CorpusFormat::uci ? "no docword.txt" : "neither manifest.json nor docword.txt");
  }

  const std::string name = path.filename().string();
  const bool uci_name = name.starts_with("docword.") && name.ends_with(".txt");
  const fs::path beside = path.parent_path();
  const auto uci_vocab = [&] {
    if (!uci_name) return vocab_or(beside / "vocab.txt");
    // docword.NAME.txt → vocab.NAME.txt; docword.txt → vocab.txt.
    return vocab_or(beside / ("vocab" + name.substr(std::string_view("docword").size())));
  };
  switch (options.format) {
    case CorpusFormat::uci:
      return read_uci(path, uci_vocab(), options.max_tokens);
    case CorpusFormat::text:
      return read_text_lines(path, options.tokenizer);
    case CorpusFormat::docword:
      return read_doc_word_counts(path, vocab_or(beside / "vocab.txt"), options.max_tokens);
    case CorpusFormat::automatic:
      break;
  }
  if (uci_name) return read_uci(path, uci_vocab(), options.max_tokens);
  if (!reads_as_text(path, options))
    return read_doc_word_counts(path, vocab_or(beside / "vocab.txt"), options.max_tokens);
  if (!options.vocab.empty())
    throw std::invalid_argument("a vocabulary file applies to uci and docword input, but " + path.string() +
                                " reads as text lines");
  return read_text_lines(path, options.tokenizer);
}

bool reads_as_text(const fs::path& path, const CorpusOptions& options) {
  std::error_code ec;
  if (options.format != CorpusFormat::automatic) return options.format == CorpusFormat::text;
  if (fs::is_directory(path, ec)) return false;
  const std::string name = path.filename().string();
  if (name.starts_with("docword.") && name.ends_with(".txt")) return false;
  return !looks_like_doc_word_counts(first_content_line(slurp(path)));
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
