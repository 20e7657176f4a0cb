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
  zero_phi_.resize(K_);
  for (std::uint32_t k = 0; k < K_; ++k) zero_phi_[k] = beta / (static_cast<double>(totals[k]) + vbeta);
  row_begin_.reserve(V_ + std::size_t{1});
  row_begin_.push_back(0);
  row_topics_.reserve(word_topic.entries());
  row_phi_.reserve(word_topic.entries());
  for (std::uint32_t w = 0; w < V_; ++w) {
    const auto ks = word_topic.topics_of(w);
    const auto ns = word_topic.counts_of(w);
    for (std::size_t i = 0; i < ks.size(); ++i) {
      row_topics_.push_back(ks[i]);
      row_phi_.push_back((ns[i] + beta) / (static_cast<double>(totals[ks[i]]) + vbeta));
    }
    row_begin_.push_back(row_topics_.size());
  }
  // argmax_k φ̂_k(w), the lowest k on a tie, without making V rows of K: the best topic a word
  // has no count of is the first of the topics ordered by zero-count φ̂ (descending, then by
  // k) that is not among its non-zero ones; the row's own φ̂ compete with it.
  std::vector<std::uint32_t> by_zero_phi(K_);
  std::iota(by_zero_phi.begin(), by_zero_phi.end(), 0u);
  std::sort(by_zero_phi.begin(), by_zero_phi.end(), [&](std::uint32_t a, std::uint32_t b) {
    return zero_phi_[a] != zero_phi_[b] ? zero_phi_[a] > zero_phi_[b] : a < b;
  });
  top_.resize(V_);
  for (std::uint32_t w = 0; w < V_; ++w) {
    const auto first = row_topics_.begin() + static_cast<std::ptrdiff_t>(row_begin_[w]);
    const auto last = row_topics_.begin() + static_cast<std::ptrdiff_t>(row_begin_[w + 1]);
    std::uint32_t best = K_;
    double best_phi = 0;
    const auto offer = [&](std::uint32_t k, double phi) {
      if (best == K_ || phi > best_phi || (phi == best_phi && k < best)) best = k, best_phi = phi;
    };
    for (const std::uint32_t k : by_zero_phi)
      if (!std::binary_search(first, last, k)) {
        offer(k, zero_phi_[k]);
        break;
      }
    for (auto it = first; it != last; ++it)
      offer(*it, row_phi_[static_cast<std::size_t>(it - row_topics_.begin())]);
    top_[w] = best;
  }
}

void FixedTopics::phi(std::uint32_t word, std::span<double> row) const {
  std::copy(zero_phi_.begin(), zero_phi_.end(), row.begin());
  for (std::uint64_t i = row_begin_[word]; i < row_begin_[word + 1]; ++i) row[row_topics_[i]] = row_phi_[i];
}

const double* FixedTopics::phi(std::uint32_t word, std::vector<double>& scratch) const {
  scratch.resize(K_);
  phi(word, std::span<double>(scratch));
  return scratch.data();
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
  std::vector<double> running(K), row;
  for (int sweep = 0; sweep < sweeps; ++sweep)
    for (std::size_t i = 0; i < words.size(); ++i) {
      --doc_topic[topics[i]];
      const double* phi = model.phi(words[i], row);
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
