// apps/lda/fold_in.cpp — Gibbs sampling of one document's topics against a fixed word-topic law.
#include "lda/fold_in.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <string>

#include "lda/config.hpp"

namespace gyre::lda {

namespace {

TopicCountRows rows_of(std::uint32_t K, std::span<const std::int32_t> dense) {
  if (K == 0 || dense.size() % K != 0) throw std::invalid_argument("word-topic counts are not V × K");
  TopicCountRows rows(K);
  for (std::size_t at = 0; at < dense.size(); at += K) rows.add_dense(dense.subspan(at, K));
  return rows;
}

}  // namespace

FixedTopics::FixedTopics(std::uint32_t topics, double alpha, double beta, std::span<const std::int32_t> word_topic)
    : FixedTopics(topics, alpha, beta, rows_of(topics, word_topic)) {}

FixedTopics::FixedTopics(std::uint32_t topics, double alpha, double beta, const TopicCountRows& word_topic)
    : K_(topics), V_(static_cast<std::uint32_t>(word_topic.rows())), alpha_(alpha), beta_(beta) {
  if (K_ == 0 || K_ > kMaxTopics) throw std::invalid_argument("topics must be in 1.." + std::to_string(kMaxTopics));
  if (word_topic.topics() != K_) throw std::invalid_argument("word-topic counts of another K");
  if (!(std::isfinite(alpha) && alpha > 0 && std::isfinite(beta) && beta > 0))
    throw std::invalid_argument("alpha and beta must be finite and > 0");
  const std::vector<std::int64_t> totals = word_topic.column_sums();  // n_k, exact
  const double vbeta = static_cast<double>(V_) * beta;
  std::vector<double> empty(K_);  // φ̂ of a count of zero, per topic
  for (std::uint32_t k = 0; k < K_; ++k) empty[k] = beta / (static_cast<double>(totals[k]) + vbeta);
  phi_.resize(static_cast<std::size_t>(V_) * K_);
  for (std::uint32_t w = 0; w < V_; ++w) {
    double* row = phi_.data() + static_cast<std::size_t>(w) * K_;
    std::copy(empty.begin(), empty.end(), row);
    const auto ks = word_topic.topics_of(w);
    const auto ns = word_topic.counts_of(w);
    for (std::size_t i = 0; i < ks.size(); ++i) row[ks[i]] = (ns[i] + beta) / (static_cast<double>(totals[ks[i]]) + vbeta);
  }
  top_.resize(V_);
  for (std::uint32_t w = 0; w < V_; ++w)
    top_[w] = static_cast<std::uint32_t>(std::max_element(phi(w), phi(w) + K_) - phi(w));
}

void fold_in(const FixedTopics& model, std::span<const std::uint32_t> words, int sweeps, Rng& rng,
             std::span<std::int32_t> doc_topic, std::span<std::uint32_t> topics) {
  const std::uint32_t K = model.topics();
  if (doc_topic.size() != K) throw std::invalid_argument("doc-topic counts are not K");
  if (topics.size() != words.size()) throw std::invalid_argument("a topic per word is needed");
  std::fill(doc_topic.begin(), doc_topic.end(), 0);
  for (std::size_t i = 0; i < words.size(); ++i) {
    topics[i] = model.top_topic(words[i]);
    ++doc_topic[topics[i]];
  }
  std::vector<double> running(K);
  for (int sweep = 0; sweep < sweeps; ++sweep)
    for (std::size_t i = 0; i < words.size(); ++i) {
      --doc_topic[topics[i]];
      const double* phi = model.phi(words[i]);
      double total = 0;
      for (std::uint32_t k = 0; k < K; ++k) running[k] = total += (doc_topic[k] + model.alpha()) * phi[k];
      topics[i] = draw_from_running(running, rng);
      ++doc_topic[topics[i]];
    }
}

void fold_in(const FixedTopics& model, std::span<const std::uint32_t> words, int sweeps, Rng& rng,
             std::span<std::int32_t> doc_topic) {
  std::vector<std::uint32_t> topics(words.size());
  fold_in(model, words, sweeps, rng, doc_topic, topics);
}

std::uint32_t draw_from_running(std::span<const double> running, Rng& rng) {
  const double u = rng.uniform() * running.back();
  const auto k = static_cast<std::size_t>(std::upper_bound(running.begin(), running.end(), u) - running.begin());
  return static_cast<std::uint32_t>(std::min(k, running.size() - 1));
}

void topic_proportions(std::span<const std::int32_t> doc_topic, double alpha, std::span<double> theta) {
  const double n = std::accumulate(doc_topic.begin(), doc_topic.end(), 0.0);
  const double denominator = n + static_cast<double>(doc_topic.size()) * alpha;
  for (std::size_t k = 0; k < doc_topic.size(); ++k) theta[k] = (doc_topic[k] + alpha) / denominator;
}

}  // namespace gyre::lda
