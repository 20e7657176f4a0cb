// apps/lda/model_io.cpp — sparse count files, topic summaries and the model's JSON header.
#include "lda/model_io.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <numeric>

#include "gyre/base/output_directory.hpp"
#include "gyre/base/output_file.hpp"

namespace gyre::lda {
namespace {

// Appends " k:n" for every non-zero count of a row (no leading space for the first).
template <class Count>
void append_sparse(std::string& line, const Count* row, std::uint32_t K) {
  bool first = true;
  for (std::uint32_t k = 0; k < K; ++k) {
    if (row[k] == 0) continue;
    if (!first) line.push_back(' ');
    first = false;
    line += std::to_string(k);
    line.push_back(':');
    line += std::to_string(row[k]);
  }
}

}  // namespace

std::vector<std::vector<std::string>> top_words(const LdaModel& model, std::size_t n) {
  const std::uint32_t K = model.topics;
  const auto V = static_cast<std::uint32_t>(model.vocab.size());
  std::vector<std::vector<std::string>> out(K);
  std::vector<std::uint32_t> order(V);
  for (std::uint32_t k = 0; k < K; ++k) {
    std::iota(order.begin(), order.end(), 0u);
    const std::size_t take = std::min<std::size_t>(n, V);
    std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(take), order.end(),
                      [&](std::uint32_t a, std::uint32_t b) {
                        const auto ca = model.word_topic[std::size_t{a} * K + k];
                        const auto cb = model.word_topic[std::size_t{b} * K + k];
                        return ca != cb ? ca > cb : a < b;
                      });
    for (std::size_t i = 0; i < take; ++i) {
      char p[32];
      std::snprintf(p, sizeof p, ":%.4f", model.word_probability(k, order[i]));
      out[k].push_back(model.vocab[order[i]] + p);
    }
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
      const std::int32_t* row = model.word_topic.data() + w * K;
      if (std::all_of(row, row + K, [](std::int32_t c) { return c == 0; })) continue;
      line = std::to_string(w) + '\t' + model.vocab[w] + '\t';
      append_sparse(line, row, K);
      line.push_back('\n');
      out.stream() << line;
    }
    out.commit();
  }
  {
    OutputFile out(dir / "doc_topic.tsv");
    for (std::size_t i = 0; i < model.doc_ids.size(); ++i) {
      line = std::to_string(model.doc_ids[i]) + '\t';
      append_sparse(line, model.doc_topic.data() + i * K, K);
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
