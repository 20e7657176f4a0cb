// apps/lda/fold_in.cpp — Gibbs sampling of one document's topics against a fixed word-topic law.
#include "lda/fold_in.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

namespace gyre::lda {

FixedTopics::FixedTopics(std::uint32_t topics, double alpha, double beta, std::span<const std::int32_t> word_topic)
    : K_(topics), V_(0), alpha_(alpha), beta_(beta) {
  if (K_ == 0 || K_ > 65535) throw std::invalid_argument("topics must be in 1..65535");
  if (word_topic.size() % K_ != 0) throw std::invalid_argument("word-topic counts are not V × K");
  if (!(std::isfinite(alpha) && alpha > 0 && std::isfinite(beta) && beta > 0))
    throw std::invalid_argument("alpha and beta must be finite and > 0");
  V_ = static_cast<std::uint32_t>(word_topic.size() / K_);
  std::vector<std::int64_t> totals(K_, 0);  // n_k, exact
  for (std::size_t i = 0; i < word_topic.size(); ++i) {
    if (word_topic[i] < 0) throw std::invalid_argument("a negative word-topic count");
    totals[i % K_] += word_topic[i];
  }
  const double vbeta = static_cast<double>(V_) * beta;
  phi_.resize(word_topic.size());
  for (std::size_t i = 0; i < word_topic.size(); ++i)
    phi_[i] = (word_topic[i] + beta) / (static_cast<double>(totals[i % K_]) + vbeta);
  top_.resize(V_);
  for (std::uint32_t w = 0; w < V_; ++w)
    top_[w] = static_cast<std::uint16_t>(std::max_element(phi(w), phi(w) + K_) - phi(w));
}

void fold_in(const FixedTopics& model, std::span<const std::uint32_t> words, int sweeps, Rng& rng,
             std::span<std::int32_t> doc_topic, std::span<std::uint16_t> topics) {
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
      const double u = rng.uniform() * total;
      const auto k = static_cast<std::uint32_t>(std::upper_bound(running.begin(), running.end(), u) - running.begin());
      topics[i] = static_cast<std::uint16_t>(std::min(k, K - 1));
      ++doc_topic[topics[i]];
    }
}

void fold_in(const FixedTopics& model, std::span<const std::uint32_t> words, int sweeps, Rng& rng,
             std::span<std::int32_t> doc_topic) {
  std::vector<std::uint16_t> topics(words.size());
  fold_in(model, words, sweeps, rng, doc_topic, topics);
}

void topic_proportions(std::span<const std::int32_t> doc_topic, double alpha, std::span<double> theta) {
  const double n = std::accumulate(doc_topic.begin(), doc_topic.end(), 0.0);
  const double denominator = n + static_cast<double>(doc_topic.size()) * alpha;
  for (std::size_t k = 0; k < doc_topic.size(); ++k) theta[k] = (doc_topic[k] + alpha) / denominator;
}

}  // namespace gyre::lda
