// apps/lda/model_io.cpp — sparse count files, topic summaries and the model's JSON header.
#include "lda/model_io.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string_view>
#include <numeric>

#include "app/model_header.hpp"
#include "gyre/base/input_error.hpp"
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
void read_header(const std::filesystem::path& file, LdaModel& m, std::uint32_t& vocab) {
  const nlohmann::json header = app::read_model_header(file, "gyre-lda", "gyre-lda --out");
  const auto prior = [&](const char* key) {
    return app::header_field(header, file, key, "a finite number > 0", [](const nlohmann::json& v) {
             return v.is_number() && std::isfinite(v.get<double>()) && v.get<double>() > 0;
           }).get<double>();
  };
  app::header_count(header, file, "version", 1, 1);
  m.topics = static_cast<std::uint32_t>(app::header_count(header, file, "topics", 1, 65535));
  vocab = static_cast<std::uint32_t>(app::header_count(header, file, "vocab", 1, data::kMaxId + 1));
  m.alpha = prior("alpha");
  m.beta = prior("beta");
}

// word_topic.tsv: "word_id<TAB>word<TAB>k:n k:n ...", ids ascending, topics below K.
void read_word_topic(const std::filesystem::path& file, LdaModel& m) {
  const std::uint32_t K = m.topics;
  const auto V = static_cast<std::uint32_t>(m.vocab.size());
  const std::string text = data::slurp(file);
  data::LineCursor lines(text);
  std::string_view line;
  std::int64_t last = -1;
  std::vector<std::int32_t> row(K, 0);
  m.word_topic = TopicCountRows(K);
  while (lines.next(line)) {
    const std::size_t tab1 = line.find('\t'), tab2 = tab1 == line.npos ? line.npos : line.find('\t', tab1 + 1);
    if (tab2 == line.npos)
      throw InputError(file, lines.number(), "\"word_id<TAB>word<TAB>k:n ...\"", std::string(line));
    const std::uint64_t w = data::parse_bounded(file, lines.number(), line.substr(0, tab1), "word id",
                                                static_cast<std::uint64_t>(last + 1), V - 1ull);
    while (m.word_topic.rows() < w) m.word_topic.add_dense(row);  // words without counts have no line
    last = static_cast<std::int64_t>(w);
    m.vocab[w] = std::string(line.substr(tab1 + 1, tab2 - tab1 - 1));
    std::string_view pairs = line.substr(tab2 + 1);
    while (!pairs.empty()) {
      const std::size_t end = std::min(pairs.find(' '), pairs.size());
      const std::string_view pair = pairs.substr(0, end);
      pairs.remove_prefix(std::min(end + 1, pairs.size()));
      const std::size_t colon = pair.find(':');
      if (colon == pair.npos) throw InputError(file, lines.number(), "\"topic:count\" pairs", std::string(pair));
      const std::uint64_t k = data::parse_bounded(file, lines.number(), pair.substr(0, colon), "topic", 0, K - 1ull);
      const std::uint64_t n = data::parse_bounded(file, lines.number(), pair.substr(colon + 1), "count", 1,
                                                  std::numeric_limits<std::int32_t>::max());
      row[k] = static_cast<std::int32_t>(n);
    }
    m.word_topic.add_dense(row);
    std::fill(row.begin(), row.end(), 0);
  }
  while (m.word_topic.rows() < V) m.word_topic.add_dense(row);
}

}  // namespace

LdaModel read_model(const std::filesystem::path& dir) {
  app::require_model_directory(dir, "a gyre-lda model directory (model.json, word_topic.tsv)");
  LdaModel m;
  std::uint32_t vocab = 0;
  read_header(dir / "model.json", m, vocab);
  m.vocab.assign(vocab, std::string());
  read_word_topic(dir / "word_topic.tsv", m);
  m.topic_totals = m.word_topic.column_sums();
  for (const std::int64_t n : m.topic_totals) m.tokens += static_cast<std::uint64_t>(n);
  return m;
}

std::vector<std::vector<std::string>> top_words(const LdaModel& model, std::size_t n) {
  const std::uint32_t K = model.topics;
  const auto V = static_cast<std::uint32_t>(model.vocab.size());
  // Per topic, its words with a count: the rest tie at zero and come after them by id.
  std::vector<std::vector<std::pair<std::int32_t, std::uint32_t>>> counted(K);  // (count, word)
  for (std::uint32_t w = 0; w < V; ++w) {
    const auto topics = model.word_topic.topics_of(w);
    const auto counts = model.word_topic.counts_of(w);
    for (std::size_t i = 0; i < topics.size(); ++i) counted[topics[i]].emplace_back(counts[i], w);
  }
  std::vector<std::vector<std::string>> out(K);
  std::vector<std::uint32_t> order;
  for (std::uint32_t k = 0; k < K; ++k) {
    auto& words = counted[k];
    const std::size_t take = std::min<std::size_t>(n, V);
    const std::size_t ranked = std::min(take, words.size());
    std::partial_sort(words.begin(), words.begin() + static_cast<std::ptrdiff_t>(ranked), words.end(),
                      [](const auto& a, const auto& b) { return a.first != b.first ? a.first > b.first : a.second < b.second; });
    order.clear();
    for (std::size_t i = 0; i < ranked; ++i) order.push_back(words[i].second);
    for (std::uint32_t w = 0; order.size() < take && w < V; ++w)
      if (model.word_topic.count(w, k) == 0) order.push_back(w);
    for (const std::uint32_t w : order) {
      char p[32];
      std::snprintf(p, sizeof p, ":%.4f", model.word_probability(k, w));
      out[k].push_back(model.vocab[w] + p);
    }
    words = {};
  }
  return out;
}

const DirectoryKind& model_directory() {
  static const DirectoryKind kind = DirectoryKind::of_files(
      "a gyre-lda model", {"model.json", "word_topic.tsv", "doc_topic.tsv", "topics.txt"});
  return kind;
}

void write_model(const std::filesystem::path& path, const LdaModel& model, std::size_t top) {
  OutputDirectory directory(path, model_directory());
  const std::filesystem::path& dir = directory.staging();
  const std::uint32_t K = model.topics;
  std::string line;
  {
    OutputFile out(dir / "word_topic.tsv");
    for (std::size_t w = 0; w < model.vocab.size(); ++w) {
      if (model.word_topic.topics_of(w).empty()) continue;
      line = std::to_string(w) + '\t' + model.vocab[w] + '\t';
      append_row(line, model.word_topic, w);
      line.push_back('\n');
      out.stream() << line;
    }
    out.commit();
  }
  {
    OutputFile out(dir / "doc_topic.tsv");
    for (std::size_t i = 0; i < model.doc_ids.size(); ++i) {
      line = std::to_string(model.doc_ids[i]) + '\t';
      append_row(line, model.doc_topic, i);
      line.push_back('\n');
      out.stream() << line;
    }
    out.commit();
  }
  {
    OutputFile out(dir / "topics.txt");
    const auto words = top_words(model, top);
    for (std::uint32_t k = 0; k < K; ++k) {
      line = "topic " + std::to_string(k) + '\t' + std::to_string(model.topic_totals[k]) + '\t';
      for (std::size_t i = 0; i < words[k].size(); ++i) line += (i ? " " : "") + words[k][i];
      line.push_back('\n');
      out.stream() << line;
    }
    out.commit();
  }
  const nlohmann::json header = {{"format", "gyre-lda"},
                                 {"version", 1},
                                 {"topics", K},
                                 {"vocab", model.vocab.size()},
                                 {"alpha", model.alpha},
                                 {"beta", model.beta},
                                 {"tokens", model.tokens},
                                 {"docs", model.doc_ids.size()},
                                 {"loglik_per_token", model.loglik_per_token}};
  OutputFile out(dir / "model.json");
  out.stream() << header.dump(2) << '\n';
  out.commit();
  directory.commit();
}

}  // namespace gyre::lda
