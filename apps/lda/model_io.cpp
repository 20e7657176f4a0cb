// apps/lda/model_io.cpp — sparse count files, topic summaries and the model's JSON header.
#include "lda/model_io.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string_view>
#include <numeric>

#include "app/model_header.hpp"
#include "app/part_files.hpp"
#include "gyre/base/input_error.hpp"
#include "gyre/base/json_input.hpp"
#include "gyre/base/output_directory.hpp"
#include "gyre/base/output_file.hpp"
#include "gyre/data/ratings.hpp"
#include "gyre/data/text_input.hpp"

namespace gyre::lda {
namespace {

// Appends "k:n k:n ..." for row r's non-zero counts, topics ascending.
void append_row(std::string& line, const TopicCountRows& rows, std::size_t r) {
  const auto topics = rows.topics_of(r);
  const auto counts = rows.counts_of(r);
  for (std::size_t i = 0; i < topics.size(); ++i) {
    if (i > 0) line.push_back(' ');
    line += std::to_string(topics[i]);
    line.push_back(':');
    line += std::to_string(counts[i]);
  }
}

// model.json's fields that inference reads, each checked to be what write_model writes.
void read_header(const std::filesystem::path& file, const nlohmann::json& header, LdaModel& m, std::uint32_t& vocab) {
  const auto prior = [&](const char* key) {
    return app::header_field(header, file, key, "a finite number > 0", [](const nlohmann::json& v) {
             return v.is_number() && std::isfinite(v.get<double>()) && v.get<double>() > 0;
           }).get<double>();
  };
  app::header_count(header, file, "version", 1, kPartsVersion);
  m.topics = static_cast<std::uint32_t>(app::header_count(header, file, "topics", 1, kMaxTopics));
  vocab = static_cast<std::uint32_t>(app::header_count(header, file, "vocab", 1, data::kMaxId + 1));
  m.alpha = prior("alpha");
  m.beta = prior("beta");
}

// A word_topic file's text: the whole model's, or a part's.
struct WordTopicText {
  std::filesystem::path file;
  std::string text;
};

// word_topic.tsv: "word_id<TAB>word<TAB>k:n k:n ...", ids ascending within a file, topics below
// K; of a model in parts, every part's file, each word in one of them.
void read_word_topic(const std::vector<WordTopicText>& files, LdaModel& m, const std::filesystem::path& manifest) {
  const std::uint32_t K = m.topics;
  const auto V = static_cast<std::uint32_t>(m.vocab.size());
  struct Line {
    std::uint64_t word;
    std::size_t file;
    std::size_t number;
    std::string_view rest;  // after the word id's tab
  };
  std::vector<Line> all;
  for (std::size_t f = 0; f < files.size(); ++f) {
    const auto& file = files[f].file;
    data::LineCursor lines(files[f].text);
    std::string_view line;
    std::int64_t last = -1;
    while (lines.next(line)) {
      const std::size_t tab1 = line.find('\t'), tab2 = tab1 == line.npos ? line.npos : line.find('\t', tab1 + 1);
      if (tab2 == line.npos)
        throw InputError(file, lines.number(), "\"word_id<TAB>word<TAB>k:n ...\"", std::string(line));
      const std::uint64_t w = data::parse_bounded(file, lines.number(), line.substr(0, tab1), "word id",
                                                  static_cast<std::uint64_t>(last + 1), V - 1ull);
      last = static_cast<std::int64_t>(w);
      all.push_back({w, f, lines.number(), line.substr(tab1 + 1)});
    }
  }
  if (files.size() > 1) std::stable_sort(all.begin(), all.end(), [](const Line& a, const Line& b) { return a.word < b.word; });
  // A row at a time as its pairs (a row is O(its entries), not O(K): at K = 100 000 the words
  // without counts alone would cost V × K).
  std::vector<std::pair<std::uint32_t, std::int32_t>> row;
  std::vector<std::uint32_t> row_topics;
  std::vector<std::int32_t> row_counts;
  m.word_topic = TopicCountRows(K);
  for (std::size_t i = 0; i < all.size(); ++i) {
    const Line& at = all[i];
    const auto& file = files[at.file].file;
    if (i > 0 && all[i - 1].word == at.word)
      throw InputError(manifest, 0, "each word in one part",
                       "word " + std::to_string(at.word) + " in " + files[all[i - 1].file].file.string() + " and " + file.string());
    while (m.word_topic.rows() < at.word) m.word_topic.add_sparse({}, {});  // words without counts have no line
    const std::size_t tab = at.rest.find('\t');
    m.vocab[at.word] = std::string(at.rest.substr(0, tab));
    std::string_view pairs = at.rest.substr(tab + 1);
    while (!pairs.empty()) {
      const std::size_t end = std::min(pairs.find(' '), pairs.size());
      const std::string_view pair = pairs.substr(0, end);
      pairs.remove_prefix(std::min(end + 1, pairs.size()));
      const std::size_t colon = pair.find(':');
      if (colon == pair.npos) throw InputError(file, at.number, "\"topic:count\" pairs", std::string(pair));
      const std::uint64_t k = data::parse_bounded(file, at.number, pair.substr(0, colon), "topic", 0, K - 1ull);
      const std::uint64_t n = data::parse_bounded(file, at.number, pair.substr(colon + 1), "count", 1,
                                                  std::numeric_limits<std::int32_t>::max());
      row.emplace_back(static_cast<std::uint32_t>(k), static_cast<std::int32_t>(n));
    }
    // Topics ascending; a topic named twice keeps its last count.
    std::stable_sort(row.begin(), row.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    row_topics.clear();
    row_counts.clear();
    for (std::size_t j = 0; j < row.size(); ++j)
      if (j + 1 == row.size() || row[j + 1].first != row[j].first) {
        row_topics.push_back(row[j].first);
        row_counts.push_back(row[j].second);
      }
    m.word_topic.add_sparse(row_topics, row_counts);
    row.clear();
  }
  while (m.word_topic.rows() < V) m.word_topic.add_sparse({}, {});
}

// The files of a model in parts: each part's word_topic file, checked against model.json.
std::vector<WordTopicText> part_files(const std::filesystem::path& dir, const std::filesystem::path& manifest,
                                      const nlohmann::json& header) {
  const auto& parts = app::header_field(header, manifest, "parts", "an array of the model's parts, one or more",
                                        [](const nlohmann::json& v) { return v.is_array() && !v.empty(); });
  std::vector<WordTopicText> out;
  for (std::size_t p = 0; p < parts.size(); ++p) {
    const nlohmann::json& part = parts[p];
    if (!part.is_object() || part.value("part", -1) != static_cast<int>(p) || !part.contains("files") ||
        !part["files"].is_object() || !part["files"].contains("word_topic"))
      throw InputError(manifest, 0,
                       "parts[" + std::to_string(p) + "]: an object with \"part\": " + std::to_string(p) +
                           " and its \"files\" (\"word_topic\", \"doc_topic\")",
                       json_excerpt(part));
    std::string text = app::read_sealed_text(dir, manifest, part["files"]["word_topic"]);  // checks the entry first
    out.push_back({dir / part["files"]["word_topic"]["file"].get<std::string>(), std::move(text)});
  }
  return out;
}

}  // namespace

LdaModel read_model(const std::filesystem::path& dir) {
  app::require_model_directory(dir, "a gyre-lda model directory (model.json, word_topic.tsv)");
  LdaModel m;
  std::uint32_t vocab = 0;
  const auto manifest = dir / "model.json";
  const nlohmann::json header = app::read_model_header(manifest, "gyre-lda", "gyre-lda --out");
  read_header(manifest, header, m, vocab);
  m.vocab.assign(vocab, std::string());
  if (header["version"] == kPartsVersion) {
    read_word_topic(part_files(dir, manifest, header), m, manifest);
  } else {
    const auto file = dir / "word_topic.tsv";
    read_word_topic({{file, data::slurp(file)}}, m, manifest);
  }
  m.topic_totals = m.word_topic.column_sums();
  for (const std::int64_t n : m.topic_totals) m.tokens += static_cast<std::uint64_t>(n);
  return m;
}

TopCandidates top_candidates(const LdaModel& model, std::size_t n) {
  const std::uint32_t K = model.topics;
  // Per topic, its words with a count: the rest tie at zero and come after them by id.
  TopCandidates counted(K);  // (count, word)
  for (std::uint32_t w = 0; w < model.word_topic.rows(); ++w) {
    const auto topics = model.word_topic.topics_of(w);
    const auto counts = model.word_topic.counts_of(w);
    for (std::size_t i = 0; i < topics.size(); ++i) counted[topics[i]].emplace_back(counts[i], w);
  }
  for (auto& words : counted) {
    const std::size_t ranked = std::min(n, words.size());
    std::partial_sort(words.begin(), words.begin() + static_cast<std::ptrdiff_t>(ranked), words.end(),
                      [](const auto& a, const auto& b) { return a.first != b.first ? a.first > b.first : a.second < b.second; });
    words.resize(ranked);
    words.shrink_to_fit();
  }
  return counted;
}

std::vector<std::vector<std::string>> top_words(const LdaModel& model, std::size_t n) {
  return top_words(model, {top_candidates(model, n)}, n);
}

std::vector<std::vector<std::string>> top_words(const LdaModel& model, const std::vector<TopCandidates>& parts,
                                                std::size_t n) {
  const std::uint32_t K = model.topics;
  const auto V = static_cast<std::uint32_t>(model.vocab.size());
  std::vector<std::vector<std::string>> out(K);
  std::vector<std::pair<std::int32_t, std::uint32_t>> words;
  std::vector<std::uint32_t> counted;
  for (std::uint32_t k = 0; k < K; ++k) {
    words.clear();
    for (const auto& part : parts) words.insert(words.end(), part[k].begin(), part[k].end());
    const std::size_t take = std::min<std::size_t>(n, V);
    const std::size_t ranked = std::min(take, words.size());
    std::partial_sort(words.begin(), words.begin() + static_cast<std::ptrdiff_t>(ranked), words.end(),
                      [](const auto& a, const auto& b) { return a.first != b.first ? a.first > b.first : a.second < b.second; });
    // Fewer than n counted words: then every part sent all of its, and the rest are the words
    // without a count in k, by id.
    counted.clear();
    for (const auto& [count, w] : words) counted.push_back(w);
    std::sort(counted.begin(), counted.end());
    words.resize(ranked);
    for (std::uint32_t w = 0; words.size() < take && w < V; ++w)
      if (!std::binary_search(counted.begin(), counted.end(), w)) words.emplace_back(0, w);
    const double v = static_cast<double>(V);
    for (const auto& [count, w] : words) {
      char p[32];
      std::snprintf(p, sizeof p, ":%.4f", (count + model.beta) / (static_cast<double>(model.topic_totals[k]) + v * model.beta));
      out[k].push_back(model.vocab[w] + p);
    }
  }
  return out;
}

namespace {

constexpr std::array<std::string_view, 2> kStems{"word_topic", "doc_topic"};

// word_topic's lines: each word with a count, by id.
app::FileSeal write_word_topic(const std::filesystem::path& dir, std::string name, const LdaModel& model) {
  app::SealedOutput out(dir, std::move(name));
  std::string line;
  for (std::size_t w = 0; w < model.word_topic.rows(); ++w) {
    if (model.word_topic.topics_of(w).empty()) continue;
    line = std::to_string(w) + '\t' + model.vocab[w] + '\t';
    append_row(line, model.word_topic, w);
    line.push_back('\n');
    out.write(line);
  }
  return out.commit();
}

// doc_topic's lines: each document, by id.
app::FileSeal write_doc_topic(const std::filesystem::path& dir, std::string name, const LdaModel& model) {
  app::SealedOutput out(dir, std::move(name));
  std::string line;
  for (std::size_t i = 0; i < model.doc_ids.size(); ++i) {
    line = std::to_string(model.doc_ids[i]) + '\t';
    append_row(line, model.doc_topic, i);
    line.push_back('\n');
    out.write(line);
  }
  return out.commit();
}

void write_topics(const std::filesystem::path& dir, const LdaModel& model, const std::vector<std::vector<std::string>>& words) {
  OutputFile out(dir / "topics.txt");
  std::string line;
  for (std::uint32_t k = 0; k < model.topics; ++k) {
    line = "topic " + std::to_string(k) + '\t' + std::to_string(model.topic_totals[k]) + '\t';
    for (std::size_t i = 0; i < words[k].size(); ++i) line += (i ? " " : "") + words[k][i];
    line.push_back('\n');
    out.stream() << line;
  }
  out.commit();
}

nlohmann::json header_of(const LdaModel& model, int version, std::uint64_t docs) {
  return {{"format", "gyre-lda"},
          {"version", version},
          {"topics", model.topics},
          {"vocab", model.vocab.size()},
          {"alpha", model.alpha},
          {"beta", model.beta},
          {"tokens", model.tokens},
          {"docs", docs},
          {"loglik_per_token", model.loglik_per_token}};
}

void write_header(const std::filesystem::path& dir, const nlohmann::json& header) {
  OutputFile out(dir / "model.json");
  out.stream() << header.dump(2) << '\n';
  out.commit();
}

}  // namespace

const DirectoryKind& model_directory() {
  static const DirectoryKind kind{"a gyre-lda model", [](std::string_view name) {
                                    static const auto single = DirectoryKind::of_files(
                                        "", {"model.json", "word_topic.tsv", "doc_topic.tsv", "topics.txt"});
                                    return single.owns(name) || app::is_part_file_name(name, kStems);
                                  }};
  return kind;
}

void write_model(const std::filesystem::path& path, const LdaModel& model, std::size_t top) {
  OutputDirectory directory(path, model_directory());
  const std::filesystem::path& dir = directory.staging();
  write_word_topic(dir, "word_topic.tsv", model);
  write_doc_topic(dir, "doc_topic.tsv", model);
  write_topics(dir, model, top_words(model, top));
  write_header(dir, header_of(model, 1, model.doc_ids.size()));
  directory.commit();
}

std::string write_model_part(const std::filesystem::path& dir, int part, const LdaModel& rows, std::size_t top) {
  nlohmann::json files = {{"word_topic", write_word_topic(dir, app::part_file_name("word_topic", part), rows).to_json()},
                          {"doc_topic", write_doc_topic(dir, app::part_file_name("doc_topic", part), rows).to_json()}};
  nlohmann::json candidates = nlohmann::json::array();
  for (const auto& topic : top_candidates(rows, top)) {
    nlohmann::json pairs = nlohmann::json::array();
    for (const auto& [count, word] : topic) pairs.push_back({count, word});
    candidates.push_back(std::move(pairs));
  }
  const nlohmann::json note = {{"part", part},
                               {"docs", rows.doc_ids.size()},
                               {"files", std::move(files)},
                               {"top_words", std::move(candidates)}};
  return note.dump();
}

std::vector<std::vector<std::string>> write_parts_manifest(const std::filesystem::path& dir, const LdaModel& model,
                                                           const std::vector<std::string>& notes, std::size_t top) {
  std::vector<TopCandidates> candidates;
  nlohmann::json parts = nlohmann::json::array();
  std::uint64_t docs = 0;
  for (const std::string& text : notes) {
    nlohmann::json note = nlohmann::json::parse(text);
    TopCandidates topics;
    for (const auto& pairs : note.at("top_words")) {
      topics.emplace_back();
      for (const auto& pair : pairs) topics.back().emplace_back(pair.at(0).get<std::int32_t>(), pair.at(1).get<std::uint32_t>());
    }
    if (topics.size() != model.topics) throw std::runtime_error("a part's top words are not of " + std::to_string(model.topics) + " topics");
    candidates.push_back(std::move(topics));
    note.erase("top_words");
    docs += note.at("docs").get<std::uint64_t>();
    parts.push_back(std::move(note));
  }
  auto words = top_words(model, candidates, top);
  write_topics(dir, model, words);
  nlohmann::json header = header_of(model, kPartsVersion, docs);
  header["parts"] = std::move(parts);
  write_header(dir, header);
  return words;
}

void export_model(const std::filesystem::path& dir, const std::filesystem::path& path) {
  app::require_model_directory(dir, "a gyre-lda model directory (model.json, word_topic.tsv)");
  const auto manifest = dir / "model.json";
  nlohmann::json header = app::read_model_header(manifest, "gyre-lda", "gyre-lda --out");
  const auto version = app::header_count(header, manifest, "version", 1, kPartsVersion);
  OutputDirectory directory(path, model_directory());
  const std::filesystem::path& out = directory.staging();
  for (const std::string_view stem : kStems) {
    const std::string name = std::string(stem) + ".tsv";
    std::vector<std::pair<std::filesystem::path, std::string>> texts;
    if (version < kPartsVersion) {
      texts.emplace_back(dir / name, data::slurp(dir / name));
    } else {
      const auto& parts = app::header_field(header, manifest, "parts", "an array of the model's parts, one or more",
                                            [](const nlohmann::json& v) { return v.is_array() && !v.empty(); });
      for (const auto& part : parts) {
        const std::string key(stem);
        if (!part.is_object() || !part.contains("files") || !part["files"].is_object() || !part["files"].contains(key))
          throw InputError(manifest, 0, "parts: objects with their \"files\" (\"" + key + "\")", json_excerpt(part));
        std::string text = app::read_sealed_text(dir, manifest, part["files"][key]);
        texts.emplace_back(dir / part["files"][key]["file"].get<std::string>(), std::move(text));
      }
    }
    // Every line by its leading id, whichever part holds it: version 1's order.
    std::vector<std::pair<std::uint64_t, std::string_view>> lines;
    for (const auto& [file, text] : texts) {
      data::LineCursor cursor(text);
      std::string_view line;
      while (cursor.next(line)) {
        const std::size_t tab = line.find('\t');
        lines.emplace_back(data::parse_bounded(file, cursor.number(), line.substr(0, tab), "id", 0, UINT64_MAX - 1), line);
      }
    }
    std::stable_sort(lines.begin(), lines.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    OutputFile file(out / name);
    for (const auto& [id, line] : lines) file.stream() << line << '\n';
    file.commit();
  }
  {
    OutputFile topics(out / "topics.txt");
    topics.stream() << data::slurp(dir / "topics.txt");
    topics.commit();
  }
  header["version"] = 1;
  header.erase("parts");
  write_header(out, header);
  directory.commit();
}

}  // namespace gyre::lda
