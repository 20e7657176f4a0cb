// apps/lda/lda/fold_in.hpp — one document's topics sampled against a fixed, trained model: what held-out evaluation and inference share.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "lda/random.hpp"
#include "lda/topic_count_rows.hpp"

namespace gyre::lda {

// The word-topic law of a trained model, φ̂_k(w) = (n_wk + β)/(n_k + Vβ) with n_k = Σ_w n_wk,
// and the doc-topic prior α of the documents folded in against it. It is fixed: folding
// documents in never changes it, so any number of threads may read it at once.
//
// Held sparse, as the counts are: φ̂ of a zero count once per topic, and each word's non-zero
// counts' φ̂ (12 bytes a non-zero), so that K = 10⁴–10⁶ fits where V × K doubles would not (spam
// at K = 10 000: 13 GB). A word's row is made on demand, the same bits as a table would hold.
class FixedTopics {
 public:
  // `word_topic`: a row per word (V of them) of K topics. Throws std::invalid_argument if K is not
  // in 1..kMaxTopics or not the rows' K, or a prior is not finite and positive.
  FixedTopics(std::uint32_t topics, double alpha, double beta, const TopicCountRows& word_topic);
  // The same from V × K dense counts, row w being word w's; also throws if their number is not
  // a multiple of K or a count is negative.
  FixedTopics(std::uint32_t topics, double alpha, double beta, std::span<const std::int32_t> word_topic);

  std::uint32_t topics() const noexcept { return K_; }
  std::uint32_t vocab() const noexcept { return V_; }
  double alpha() const noexcept { return alpha_; }
  double beta() const noexcept { return beta_; }
  // φ̂_0(w) … φ̂_{K−1}(w), made in `row` (K values).
  void phi(std::uint32_t word, std::span<double> row) const;
  // The same in `scratch` (resized to K), returned as a pointer to its first value.
  const double* phi(std::uint32_t word, std::vector<double>& scratch) const;
  // argmax_k φ̂_k(word), the lowest k on a tie.
  std::uint32_t top_topic(std::uint32_t word) const noexcept { return top_[word]; }

 private:
  std::uint32_t K_, V_;
  double alpha_, beta_;
  std::vector<double> zero_phi_;              // K: φ̂_k of a zero count
  std::vector<std::uint64_t> row_begin_;       // V + 1, into row_topics_ and row_phi_
  std::vector<std::uint32_t> row_topics_;      // each word's non-zero topics, ascending
  std::vector<double> row_phi_;                // and their φ̂
  std::vector<std::uint32_t> top_;             // V
};

// The topic counts n_dk (K of them, into `doc_topic`) of a document whose tokens are `words`
// (ids below model.vocab()), after `sweeps` Gibbs sweeps against the fixed φ̂.
//
// Every token starts at its word's most probable topic, argmax_k φ̂_k(w) (the lowest k on a
// tie): no random draw, so 0 sweeps is a well-defined estimator a test can recompute by hand,
// and a start nearer the posterior than uniform topics, which matters with a few sweeps. A
// sweep then visits the tokens in order and draws each from p(k) ∝ (n_dk¬ + α) φ̂_k(w) by
// inverting the running sum over k with one rng.uniform() (the first k whose running sum
// exceeds u · total).
void fold_in(const FixedTopics& model, std::span<const std::uint32_t> words, int sweeps, Rng& rng,
             std::span<std::int32_t> doc_topic);
// The same, leaving each token's topic in `topics` (one per word) as well.
void fold_in(const FixedTopics& model, std::span<const std::uint32_t> words, int sweeps, Rng& rng,
             std::span<std::int32_t> doc_topic, std::span<std::uint32_t> topics);

// The topic k drawn from running sums of weights (running[k] = Σ_{j≤k} weight_j) with one
// rng.uniform(): the first k whose running sum exceeds u · total.
std::uint32_t draw_from_running(std::span<const double> running, Rng& rng);

// θ̂_dk = (n_dk + α)/(N_d + Kα) of a document's topic counts (N_d = Σ_k n_dk), into `theta`.
void topic_proportions(std::span<const std::int32_t> doc_topic, double alpha, std::span<double> theta);

}  // namespace gyre::lda
