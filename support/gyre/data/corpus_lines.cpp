// gyre/data/corpus_lines.cpp — UCI entries, docword lines and text lines parsed with file:line errors, from any piece of their file.
#include "gyre/data/corpus_lines.hpp"

#include <algorithm>
#include <unordered_map>

#include "gyre/base/input_error.hpp"
#include "gyre/data/line_scan.hpp"
#include "gyre/data/manifest.hpp"
#include "gyre/data/parallel_lines.hpp"

#include <oneapi/tbb/parallel_for.h>
#include "gyre/data/ratings.hpp"
#include "gyre/data/text_input.hpp"

namespace gyre::data {
namespace {

namespace fs = std::filesystem;

// A single bag-of-words count is bounded like an id: it becomes that many tokens in memory.
constexpr std::uint64_t kMaxCount = kMaxId;

// The running token total of a counts file, refused at the line that takes it past the limit,
// before the tokens are laid out.
struct TokenBudget {
  const fs::path& file;
  std::uint64_t limit;
  std::uint64_t total;
  TokenBudget(const fs::path& f, std::uint64_t max_tokens, const CorpusPosition& at)
      : file(f), limit(max_tokens), total(at.tokens) {}
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

// Calls emit(token) for every lowercased run of ASCII letters in the line.
template <typename Emit>
void tokenize(std::string_view line, std::string& token, Emit&& emit) {
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && !is_ascii_letter(static_cast<unsigned char>(line[i]))) ++i;
    token.clear();
    while (i < line.size() && is_ascii_letter(static_cast<unsigned char>(line[i])))
      token.push_back(static_cast<char>(line[i++] | 0x20));  // ASCII letters: bit 5 is lowercase
    if (!token.empty()) emit(token);
  }
}

// The lines of `text`: its '\n's, and a last line without one.
std::uint64_t count_lines(std::string_view text) {
  return static_cast<std::uint64_t>(std::count(text.begin(), text.end(), '\n')) +
         (!text.empty() && text.back() != '\n' ? 1 : 0);
}

// `from`'s documents after `into`'s (words already checked by the parser: no vocabulary yet).
void append_documents(Corpus& into, const Corpus& from) {
  const std::uint64_t base = into.words.size();
  into.words.insert(into.words.end(), from.words.begin(), from.words.end());
  for (std::uint64_t d = 0; d < from.docs(); ++d) into.doc_begin.push_back(base + from.doc_begin[d + 1]);
  into.doc_ids.insert(into.doc_ids.end(), from.doc_ids.begin(), from.doc_ids.end());
}

// UCI entry lines from `lines` on, whose position is `at`.
CorpusPosition uci_lines(const fs::path& docword, const UciHeader& header, LineCursor& lines, CorpusPosition at,
                         std::uint64_t max_tokens, std::vector<UciEntry>& out) {
  TokenBudget tokens(docword, max_tokens, at);
  const std::uint64_t first_entry = at.entries;
  std::uint64_t entries = first_entry;
  std::string_view line, f[4];
  std::uint64_t fast[3];
  while (lines.next(line)) {
    // Unsigned: an id or count of 0 wraps round and fails its bound, as it must.
    if (parse_integer_triple(line, fast) && entries != header.entries && fast[0] - 1 < header.docs &&
        fast[1] - 1 < header.words && fast[2] - 1 < kMaxCount) {
      tokens.add(lines.number(), fast[2]);
      out.push_back({fast[0] - 1, static_cast<std::uint32_t>(fast[1] - 1), static_cast<std::uint32_t>(fast[2])});
      ++entries;
      continue;
    }
    const std::size_t n = split_blanks(line, f, 3);
    if (n == 0) continue;
    if (n != 3) throw InputError(docword, lines.number(), "3 fields \"docID wordID count\"", std::string(line));
    if (entries == header.entries)
      throw InputError(docword, lines.number(),
                       std::to_string(header.entries) + " entries as declared by NNZ on line 3, no more",
                       std::string(line));
    const std::uint64_t doc = number(docword, lines.number(), f[0], "a document id", 1, header.docs);
    const std::uint64_t word = number(docword, lines.number(), f[1], "a word id", 1, header.words);
    const std::uint64_t count = number(docword, lines.number(), f[2], "a positive integer count", 1, kMaxCount);
    tokens.add(lines.number(), count);
    out.push_back({doc - 1, static_cast<std::uint32_t>(word - 1), static_cast<std::uint32_t>(count)});
    ++entries;
  }
  return {lines.number() - at.lines, entries - first_entry, tokens.total - at.tokens};
}

// "docid word:count" lines from `lines` on, whose position is `at`.
CorpusPosition doc_word_lines(const fs::path& file, const fs::path& vocab_file, std::uint64_t words, LineCursor& lines,
                              CorpusPosition at, std::uint64_t max_tokens, Corpus& out) {
  TokenBudget tokens(file, max_tokens, at);
  const std::string word_id = "a word id (0-based line of " + vocab_file.string() + ")";
  std::string_view line;
  while (lines.next(line)) {
    const std::size_t at_line = lines.number();
    std::size_t i = 0;
    const auto next_field = [&] {
      while (i < line.size() && is_blank(line[i])) ++i;
      const std::size_t start = i;
      while (i < line.size() && !is_blank(line[i])) ++i;
      return line.substr(start, i - start);
    };
    const std::string_view doc_field = next_field();
    if (doc_field.empty()) continue;
    const std::uint64_t doc = number(file, at_line, doc_field, "a document id", 0, UINT64_MAX);
    std::size_t pairs = 0;
    for (std::string_view pair = next_field(); !pair.empty(); pair = next_field(), ++pairs) {
      const std::size_t colon = pair.find(':');
      if (colon == std::string_view::npos) throw InputError(file, at_line, "a \"word:count\" pair", std::string(pair));
      if (words == 0) throw InputError(file, at_line, word_id + ", but the vocabulary is empty", std::string(pair));
      const std::uint64_t word = number(file, at_line, pair.substr(0, colon), word_id, 0, words - 1);
      const std::uint64_t count =
          number(file, at_line, pair.substr(colon + 1), "a positive integer count in \"word:count\"", 1, kMaxCount);
      tokens.add(at_line, count);
      out.words.insert(out.words.end(), count, static_cast<std::uint32_t>(word));
    }
    if (pairs == 0)
      throw InputError(file, at_line, "\"word:count\" pairs after the document id (an empty document)", std::string(line));
    out.doc_begin.push_back(out.words.size());
    out.doc_ids.push_back(doc);
  }
  return {lines.number() - at.lines, 0, tokens.total - at.tokens};
}

}  // namespace

std::vector<std::string> read_vocab_of(const fs::path& vocab_file, const fs::path& data) {
  std::error_code ec;
  if (!fs::is_regular_file(vocab_file, ec))
    throw InputError(vocab_file, 0, "the vocabulary file (one word per line) for " + data.string(),
                     fs::exists(vocab_file, ec) ? "not a regular file" : "no such file");
  return read_vocab(vocab_file);
}

std::optional<UciHeader> parse_uci_header(const fs::path& docword, std::string_view text, bool whole) {
  static constexpr const char* kHeader[3] = {"the number of documents D", "the number of words W",
                                             "the number of entries NNZ"};
  LineCursor lines(text);
  std::string_view line, f[1];
  std::uint64_t value[3] = {0, 0, 0};
  for (int h = 0; h < 3; ++h) {
    const std::string expected = std::string("a UCI header line with ") + kHeader[h];
    if (!lines.next(line)) {
      if (!whole) return std::nullopt;
      throw InputError(docword, 0, expected, "end of file");
    }
    if (split_blanks(line, f, 1) != 1) throw InputError(docword, lines.number(), expected, std::string(line));
    value[h] = number(docword, lines.number(), f[0], expected, 0, h == 1 ? kMaxId + 1 : UINT64_MAX);
  }
  UciHeader h;
  h.docs = value[0];
  h.words = static_cast<std::uint32_t>(value[1]);
  h.entries = value[2];
  h.body_begin = text.size() - lines.rest().size();
  return h;
}

UciHeader read_uci_header(const fs::path& docword) {
  auto [header, skipped] = parse_file_start(
      docword, [&](std::string_view text, bool whole) { return parse_uci_header(docword, text, whole); });
  header.body_begin += skipped;
  return header;
}

void check_uci_vocab(const fs::path& docword, const UciHeader& header, std::size_t vocab_words,
                     const fs::path& vocab_file) {
  if (vocab_words != header.words)
    throw InputError(docword, 2, "W equal to the " + std::to_string(vocab_words) + " words of " + vocab_file.string(),
                     std::to_string(header.words));
}

void check_uci_entries(const fs::path& docword, const UciHeader& header, std::uint64_t entries) {
  if (entries != header.entries)
    throw InputError(docword, 3, std::to_string(header.entries) + " entries as declared by NNZ",
                     std::to_string(entries) + " entries");
  if (entries == 0) throw InputError(docword, 3, "at least one entry", "NNZ = 0");
}

CorpusPosition parse_uci_entries(const fs::path& docword, const UciHeader& header, std::string_view text,
                                 CorpusPosition at, std::uint64_t max_tokens, std::vector<UciEntry>& out,
                                 std::size_t threads) {
  const auto serial = [&](std::string_view piece, CorpusPosition from, std::vector<UciEntry>& into) {
    LineCursor lines(piece, from.lines);
    return uci_lines(docword, header, lines, from, max_tokens, into);
  };
  if (threads <= 1) return serial(text, at, out);
  // Chunks in parallel, each checking its own token count (a chunk past the budget puts the file
  // past it); the entries are parse_lines' records, counted against what NNZ leaves.
  // Any error (or the budget crossed across chunks) is found again by the serial loop, whose first
  // error wins: a chunk's own error may lie after the line where the running total passed the budget.
  const auto serial_error = [&] {
    std::vector<UciEntry> scratch;
    serial(text, at, scratch);
  };
  const std::uint64_t left = header.entries - std::min(header.entries, at.entries);
  std::vector<UciEntry> parsed;
  try {
    parsed = parse_lines<UciEntry>(
        text, at.lines, threads, static_cast<std::size_t>(std::min<std::uint64_t>(left, SIZE_MAX)),
        [&](LineCursor& lines, std::size_t before, std::vector<UciEntry>& into) {
          uci_lines(docword, header, lines, {lines.number(), at.entries + before, 0}, max_tokens, into);
        });
  } catch (const InputError&) {
    serial_error();
    throw;
  }
  std::uint64_t tokens = 0;
  for (const UciEntry& e : parsed) tokens += e.count;
  if (tokens > max_tokens - std::min(max_tokens, at.tokens)) serial_error();
  out.insert(out.end(), parsed.begin(), parsed.end());
  return {count_lines(text), parsed.size(), tokens};
}

Corpus corpus_from_entries(std::vector<UciEntry>& entries, std::vector<std::string> vocab) {
  const auto by_doc = [](const UciEntry& a, const UciEntry& b) { return a.doc < b.doc; };
  if (!std::is_sorted(entries.begin(), entries.end(), by_doc)) std::stable_sort(entries.begin(), entries.end(), by_doc);
  Corpus c;
  c.vocab = std::move(vocab);
  std::uint64_t tokens = 0;
  for (const UciEntry& e : entries) tokens += e.count;
  c.words.reserve(tokens);
  for (std::size_t i = 0; i < entries.size();) {
    const std::uint64_t doc = entries[i].doc;
    for (; i < entries.size() && entries[i].doc == doc; ++i) c.words.insert(c.words.end(), entries[i].count, entries[i].word);
    c.doc_begin.push_back(c.words.size());
    c.doc_ids.push_back(doc);
  }
  return c;
}

CorpusPosition parse_doc_word_lines(const fs::path& file, const fs::path& vocab_file, std::uint64_t words,
                                    std::string_view text, CorpusPosition at, std::uint64_t max_tokens, Corpus& out,
                                    std::size_t threads) {
  if (threads <= 1) {
    LineCursor lines(text, at.lines);
    return doc_word_lines(file, vocab_file, words, lines, at, max_tokens, out);
  }
  // Chunks in parallel; the tokens are the records parse_chunks counts against the budget left.
  const std::uint64_t before = out.tokens();
  Corpus parsed = parse_chunks<Corpus>(
      text, at.lines, threads, static_cast<std::size_t>(max_tokens - std::min(max_tokens, at.tokens)),
      [&](LineCursor& lines, std::size_t tokens_before, Corpus& into) {
        doc_word_lines(file, vocab_file, words, lines, {lines.number(), 0, at.tokens + tokens_before}, max_tokens, into);
      },
      [](const Corpus& c) { return static_cast<std::size_t>(c.tokens()); },
      [](std::vector<Corpus>& chunks, std::size_t total) {
        Corpus joined;
        joined.words.reserve(total);
        for (Corpus& c : chunks) {
          append_documents(joined, c);
          c = {};
        }
        return joined;
      });
  append_documents(out, parsed);
  return {count_lines(text), 0, out.tokens() - before};
}

void check_doc_word_documents(const fs::path& file, std::uint64_t docs) {
  if (docs == 0) throw InputError(file, 0, "at least one line \"docid word:count ...\"", "no documents");
}

void tokenize_text_lines(std::string_view text, const TokenizerOptions& options, TextTokens& into,
                         std::size_t threads) {
  const auto serial = [&](std::string_view piece, TextTokens& out) {
    LineCursor lines(piece);
    std::string_view line;
    std::string token;
    while (lines.next(line)) {
      tokenize(line, token, [&](const std::string& t) {
        if (t.size() < options.min_length || options.stop_words.contains(t)) return;
        const auto [it, added] = out.ids.try_emplace(t, static_cast<std::uint32_t>(out.spelled.size()));
        if (added) {
          out.spelled.push_back(t);
          out.counts.push_back(0);
        }
        ++out.counts[it->second];
        out.tokens.push_back(it->second);
      });
      out.line_end.push_back(out.tokens.size());
    }
  };
  if (threads <= 1) return serial(text, into);
  // Chunks on their own ids, then renumbered in file order: a word's id is where it first
  // appears, as one thread numbers it.
  const std::vector<std::size_t> splits = line_aligned_splits(text, threads);
  std::vector<TextTokens> chunks(threads);
  oneapi::tbb::parallel_for(std::size_t{0}, threads,
                            [&](std::size_t c) { serial(text.substr(splits[c], splits[c + 1] - splits[c]), chunks[c]); });
  for (TextTokens& chunk : chunks) {
    std::vector<std::uint32_t> id(chunk.spelled.size());
    for (std::uint32_t p = 0; p < chunk.spelled.size(); ++p) {
      const auto [it, added] = into.ids.try_emplace(chunk.spelled[p], static_cast<std::uint32_t>(into.spelled.size()));
      if (added) {
        into.spelled.push_back(std::move(chunk.spelled[p]));
        into.counts.push_back(0);
      }
      into.counts[it->second] += chunk.counts[p];
      id[p] = it->second;
    }
    const std::uint64_t base = into.tokens.size();
    for (const std::uint32_t t : chunk.tokens) into.tokens.push_back(id[t]);
    for (const std::uint64_t end : chunk.line_end) into.line_end.push_back(base + end);
    chunk = {};
  }
}

std::vector<std::string> text_vocabulary(const fs::path& file, const std::vector<std::string>& spelled,
                                         const std::vector<std::uint64_t>& counts, const TokenizerOptions& options,
                                         bool empty_file) {
  std::vector<std::uint32_t> kept;
  for (std::uint32_t p = 0; p < spelled.size(); ++p)
    if (counts[p] >= options.min_count) kept.push_back(p);
  if (kept.empty()) {
    std::string expected = "at least one word of " + std::to_string(std::max<std::size_t>(options.min_length, 1)) +
                           "+ ASCII letters that is not a stop word";
    if (options.min_count > 1) expected += " and occurs at least " + std::to_string(options.min_count) + " times";
    throw InputError(file, 0, expected, empty_file ? "an empty file" : "no such word");
  }
  std::sort(kept.begin(), kept.end(), [&](std::uint32_t a, std::uint32_t b) {
    return counts[a] != counts[b] ? counts[a] > counts[b] : spelled[a] < spelled[b];
  });
  std::vector<std::string> vocab;
  vocab.reserve(kept.size());
  for (const std::uint32_t p : kept) vocab.push_back(spelled[p]);
  return vocab;
}

std::vector<std::uint32_t> final_word_ids(const std::vector<std::string>& spelled, const std::vector<std::string>& vocab) {
  std::unordered_map<std::string_view, std::uint32_t> id;
  id.reserve(vocab.size());
  for (std::uint32_t w = 0; w < vocab.size(); ++w) id.emplace(vocab[w], w);
  std::vector<std::uint32_t> out(spelled.size(), kDroppedWord);
  for (std::size_t p = 0; p < spelled.size(); ++p)
    if (const auto it = id.find(spelled[p]); it != id.end()) out[p] = it->second;
  return out;
}

void append_text_documents(const TextTokens& tokens, const std::vector<std::uint32_t>& final_id,
                           std::uint64_t first_doc, Corpus& out) {
  std::uint64_t begin = 0;
  for (std::uint64_t line = 0; line < tokens.line_end.size(); ++line) {
    const std::uint64_t before = out.words.size();
    for (std::uint64_t t = begin; t < tokens.line_end[line]; ++t)
      if (const std::uint32_t id = final_id[tokens.tokens[t]]; id != kDroppedWord) out.words.push_back(id);
    begin = tokens.line_end[line];
    if (out.words.size() == before) continue;  // nothing left: the document is dropped
    out.doc_begin.push_back(out.words.size());
    out.doc_ids.push_back(first_doc + line);
  }
}

CorpusSource corpus_source(const fs::path& path, const CorpusOptions& options) {
  using Kind = CorpusSource::Kind;
  std::error_code ec;
  const auto vocab_or = [&](const fs::path& found) { return options.vocab.empty() ? found : options.vocab; };
  if (options.format == CorpusFormat::text && !options.vocab.empty())
    throw std::invalid_argument("a vocabulary file applies to uci and docword input, not to text");

  if (fs::is_directory(path, ec)) {
    // Text lines may be cut into several files (a directory's, in name order, as one text);
    // said, not guessed, so that a directory of something else is not taken for text.
    if (options.format == CorpusFormat::text) return {Kind::text, path, {}};
    if (options.format == CorpusFormat::docword) throw InputError(path, 0, "a docword file", "a directory");
    if (options.format == CorpusFormat::automatic && is_partition_directory(path))
      return {Kind::partition, path, {}};
    if (fs::exists(path / "docword.txt", ec)) return {Kind::uci, path / "docword.txt", vocab_or(path / "vocab.txt")};
    throw InputError(path, 0,
                     options.format == CorpusFormat::uci
                         ? "docword.txt and vocab.txt in this directory"
                         : "a corpus partition (manifest.json) or docword.txt and vocab.txt in this directory",
                     options.format == CorpusFormat::uci ? "no docword.txt" : "neither manifest.json nor docword.txt");
  }

  const std::string name = path.filename().string();
  const bool uci_name = name.starts_with("docword.") && name.ends_with(".txt");
  const fs::path beside = path.parent_path();
  // docword.NAME.txt → vocab.NAME.txt; docword.txt → vocab.txt.
  const fs::path uci_vocab =
      vocab_or(uci_name ? beside / ("vocab" + name.substr(std::string_view("docword").size())) : beside / "vocab.txt");
  switch (options.format) {
    case CorpusFormat::uci:
      return {Kind::uci, path, uci_vocab};
    case CorpusFormat::text:
      return {Kind::text, path, {}};
    case CorpusFormat::docword:
      return {Kind::docword, path, vocab_or(beside / "vocab.txt")};
    case CorpusFormat::automatic:
      break;
  }
  if (uci_name) return {Kind::uci, path, uci_vocab};
  if (!reads_as_text(path, options)) return {Kind::docword, path, vocab_or(beside / "vocab.txt")};
  if (!options.vocab.empty())
    throw std::invalid_argument("a vocabulary file applies to uci and docword input, but " + path.string() +
                                " reads as text lines");
  return {Kind::text, path, {}};
}

}  // namespace gyre::data
