// tests/apps/lda/lda_metropolis_hastings_test.cpp — the sampler's proposals follow n_k + prior, and a chain over them settles on the LDA conditional.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "lda/metropolis_hastings.hpp"

using namespace gyre;
using namespace gyre::lda;

namespace {

// Every observed frequency within 5 standard errors of its probability: a fair sampler fails
// one of these K checks about once in 10^5 runs (the seeds are fixed, so it passes or fails for
// good); a wrong threshold or index shifts a frequency by far more at these sample sizes.
void check_frequencies(const std::vector<std::uint64_t>& seen, const std::vector<double>& p, std::uint64_t draws) {
  for (std::size_t k = 0; k < p.size(); ++k) {
    CAPTURE(k);
    const double sigma = std::sqrt(p[k] * (1 - p[k]) / static_cast<double>(draws));
    CHECK(std::abs(static_cast<double>(seen[k]) / static_cast<double>(draws) - p[k]) < 5 * sigma + 1e-12);
  }
}

// The probabilities (n_k + prior) / (n + K · prior) of a row given as a list of topics.
std::vector<double> row_law(const std::vector<std::uint16_t>& topics, double prior, std::uint32_t K) {
  std::vector<double> p(K, prior);
  for (const auto k : topics) p[k] += 1;
  for (auto& x : p) x /= static_cast<double>(topics.size()) + K * prior;
  return p;
}

}  // namespace

TEST_CASE("a proposal drawn from a row follows n_k + prior: its tokens' topics and the prior's uniform share") {
  struct Case {
    std::vector<std::uint16_t> topics;
    double prior;
    std::uint32_t K;
  };
  const std::vector<Case> cases{
      {{0, 0, 3, 5, 5, 5}, 0.5, 7},          // a row and a prior of comparable mass
      {{2}, 0.01, 1000},                      // one token against a large K: the row is 1/11
      {{1, 1, 1, 1, 0, 2, 2}, 1e-6, 4},      // almost all from the row
      {{4, 4, 4, 4, 4, 4, 4, 4, 4, 4}, 50, 5}  // almost all uniform
  };
  Rng rng(stream_seed(7, 1));
  for (const auto& c : cases) {
    CAPTURE(c.K);
    CAPTURE(c.prior);
    const RowShare share(c.topics.size(), c.prior, c.K);
    const auto pick = [&](std::uint64_t i) {
      REQUIRE(i < c.topics.size());  // every index a token of the row
      return c.topics[i];
    };
    constexpr std::uint64_t kDraws = 400'000;
    std::vector<std::uint64_t> seen(c.K, 0);
    for (std::uint64_t i = 0; i < kDraws; ++i) {
      const std::uint16_t k = draw(rng, share, c.K, pick);
      REQUIRE(k < c.K);
      ++seen[k];
    }
    check_frequencies(seen, row_law(c.topics, c.prior, c.K), kDraws);
  }
}

TEST_CASE("a chain selecting by mask takes the same steps as one that branches on each acceptance") {
  const std::uint32_t K = 9;
  std::vector<std::int64_t> n{5, 0, 12, 3, 3, 40, 1, 7, 2};
  std::vector<std::int32_t> counts{0, 1, 4, 0, 2, 9, 0, 1, 3};
  const double prior = 0.2, vbeta = 3.7;
  const TotalsView totals(n.data(), K, vbeta);
  Rng source(stream_seed(11, 2));
  for (int chain = 0; chain < 20'000; ++chain) {
    std::uint16_t proposed[4];
    for (auto& t : proposed) t = static_cast<std::uint16_t>(source.below(K));
    const auto s0 = source.below(K);
    const std::uint64_t seed = source.next();
    Rng masked(seed), branching(seed);
    const std::uint32_t got = walk(masked, s0, proposed, 4, counts.data(), prior, totals);
    std::uint32_t s = s0;
    for (const std::uint16_t t : proposed) {
      const double w_s = (counts[s] + prior) / (static_cast<double>(n[s]) + vbeta);
      const double w_t = (counts[t] + prior) / (static_cast<double>(n[t]) + vbeta);
      if (branching.uniform32() * w_s < w_t) s = t;
    }
    REQUIRE(got == s);
  }
}

TEST_CASE("word proposals walked against the document's counts settle on the LDA conditional") {
  // The collapsed Gibbs conditional of one token, the others fixed:
  // p(k) ∝ (n_dk + α)(n_wk + β)/(n_k + Vβ). Proposals q(k) ∝ n_wk + β (drawn from the word's
  // tokens) walked with the ratio of w(k) = (n_dk + α)/(n_k + Vβ) are a Metropolis-Hastings chain
  // with that stationary law; after enough steps from a fixed start, independent chains end
  // distributed by it. An independence sampler forgets its start at least as fast as
  // (1 − min_k q(k)/p(k))^steps: here q(1)/p(1) ≈ 0.15, so 128 steps leave 2e-9 of it (32 left
  // 0.6%, which the check below sees).
  const std::uint32_t K = 5;
  const std::vector<std::uint16_t> word_tokens{0, 0, 0, 2, 3, 3, 3, 3, 3, 3};  // n_wk = 3 0 1 6 0
  const std::vector<std::int32_t> doc_counts{0, 2, 2, 0, 1};                   // n_dk
  std::vector<std::int64_t> n{10, 4, 7, 9, 3};                                 // n_k
  const double alpha = 0.3, beta = 0.1, vbeta = 2.0;
  std::vector<double> p(K);
  double total = 0;
  for (std::uint32_t k = 0; k < K; ++k) {
    double nwk = 0;
    for (const auto t : word_tokens) nwk += t == k;
    p[k] = (doc_counts[k] + alpha) * (nwk + beta) / (static_cast<double>(n[k]) + vbeta);
    total += p[k];
  }
  for (auto& x : p) x /= total;

  const TotalsView totals(n.data(), K, vbeta);
  const RowShare share(word_tokens.size(), beta, K);
  const auto pick = [&](std::uint64_t i) { return word_tokens[i]; };
  Rng rng(stream_seed(5, 3));
  constexpr std::uint64_t kChains = 200'000;
  constexpr int kSteps = 128;
  std::vector<std::uint64_t> seen(K, 0);
  std::uint16_t proposed[kSteps];
  for (std::uint64_t c = 0; c < kChains; ++c) {
    for (auto& t : proposed) t = draw(rng, share, K, pick);
    ++seen[walk(rng, 1, proposed, kSteps, doc_counts.data(), alpha, totals)];
  }
  check_frequencies(seen, p, kChains);
}
