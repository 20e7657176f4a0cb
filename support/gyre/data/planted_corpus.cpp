// gyre/data/planted_corpus.cpp — LDA's generative process with portable sampling, and its files.
#include "gyre/data/planted_corpus.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string>

#include "gyre/base/output_file.hpp"
#include "gyre/data/alias_table.hpp"
#include "gyre/data/corpus_io.hpp"
#include "gyre/data/ratings.hpp"

namespace gyre::data {
namespace {

// Independent streams per concern, so that e.g. more documents do not change the topics.
enum CorpusStream : std::uint64_t { kTopics, kDocTopics, kLengths, kTokens };

void check(const PlantedCorpusOptions& o) {
  const auto fail = [](const std::string& what) { throw std::invalid_argument("planted corpus: " + what); };
  if (o.docs == 0 || o.vocab == 0 || o.topics == 0) fail("docs, vocab and topics must be at least 1");
  if (o.vocab > kMaxId + 1) fail("vocab must be at most " + std::to_string(kMaxId + 1));
  if (!(o.doc_length > 0) || !std::isfinite(o.doc_length)) fail("doc length must be a finite number > 0");
  if (!(o.alpha > 0) || !std::isfinite(o.alpha)) fail("alpha must be a finite number > 0");
  if (!(o.beta > 0) || !std::isfinite(o.beta)) fail("beta must be a finite number > 0");
}

// A matrix as tab-separated %.6g lines, rows of `cols` values.
void write_matrix(const std::filesystem::path& file, const std::vector<double>& values, std::size_t cols) {
  OutputFile out(file);
  std::string buffer;
  char field[32];
  for (std::size_t i = 0; i < values.size(); ++i) {
    const int n = std::snprintf(field, sizeof field, "%.6g", values[i]);
    buffer.append(field, static_cast<std::size_t>(n)).push_back((i + 1) % cols == 0 ? '\n' : '\t');
    if (buffer.size() >= (std::size_t{1} << 20)) {
      out.stream().write(buffer.data(), static_cast<std::streamsize>(buffer.size()));
      buffer.clear();
    }
  }
  out.stream().write(buffer.data(), static_cast<std::streamsize>(buffer.size()));
  out.commit();
}

}  // namespace

PlantedCorpus generate_planted_corpus(const PlantedCorpusOptions& o) {
  check(o);
  const std::size_t K = o.topics, V = o.vocab;
  PlantedCorpus out;
  Corpus& c = out.corpus;
  c.vocab.reserve(V);
  for (std::size_t w = 0; w < V; ++w) c.vocab.push_back("w" + std::to_string(w));

  Random topic_rng(o.seed, kTopics);
  if (o.keep_truth) out.topics.resize(K * V);
  std::vector<AliasTable> word_of_topic;
  word_of_topic.reserve(K);
  std::vector<double> row(V);
  for (std::size_t k = 0; k < K; ++k) {
    topic_rng.dirichlet(o.beta, row);
    if (o.keep_truth) std::copy(row.begin(), row.end(), out.topics.begin() + static_cast<std::ptrdiff_t>(k * V));
    word_of_topic.emplace_back(row);
  }

  Random theta_rng(o.seed, kDocTopics), length_rng(o.seed, kLengths), token_rng(o.seed, kTokens);
  if (o.keep_truth) out.doc_topics.resize(o.docs * K);
  c.doc_begin.reserve(o.docs + 1);
  c.doc_ids.reserve(o.docs);
  c.words.reserve(static_cast<std::size_t>(static_cast<double>(o.docs) * o.doc_length * 1.01) + 16);
  std::vector<double> theta(K), cumulative(K);
  for (std::uint64_t d = 0; d < o.docs; ++d) {
    theta_rng.dirichlet(o.alpha, theta);
    if (o.keep_truth) std::copy(theta.begin(), theta.end(), out.doc_topics.begin() + static_cast<std::ptrdiff_t>(d * K));
    // A cumulative table costs O(K) per document against an alias table's allocations, and a
    // binary search is a handful of steps for any sensible K.
    double sum = 0;
    for (std::size_t k = 0; k < K; ++k) cumulative[k] = sum += theta[k];
    const std::uint64_t length = std::max<std::uint64_t>(1, length_rng.poisson(o.doc_length));
    for (std::uint64_t t = 0; t < length; ++t) {
      const double u = token_rng.uniform() * sum;
      const auto z = static_cast<std::size_t>(
          std::min<std::ptrdiff_t>(std::upper_bound(cumulative.begin(), cumulative.end(), u) - cumulative.begin(),
                                   static_cast<std::ptrdiff_t>(K - 1)));
      c.words.push_back(word_of_topic[z].draw(token_rng));
    }
    c.doc_begin.push_back(c.words.size());
    c.doc_ids.push_back(d);
  }
  return out;
}

void write_planted_corpus(const std::filesystem::path& dir, const PlantedCorpus& data) {
  if (data.topics.empty() && data.doc_topics.empty()) {  // generated without keep_truth
    write_uci(dir, data.corpus);
    return;
  }
  const std::size_t K = data.corpus.docs() == 0 ? 1 : data.doc_topics.size() / data.corpus.docs();
  if (data.corpus.vocab.empty() || data.topics.size() % data.corpus.vocab.size() != 0 ||
      data.doc_topics.size() != data.corpus.docs() * K || data.topics.size() / data.corpus.vocab.size() != K)
    throw std::invalid_argument("write_planted_corpus: topics and doc_topics do not fit the corpus");
  write_uci(dir, data.corpus);
  write_matrix(dir / "topics.tsv", data.topics, data.corpus.vocab.size());
  write_matrix(dir / "doc_topics.tsv", data.doc_topics, K);
}

}  // namespace gyre::data
