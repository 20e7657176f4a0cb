// apps/lda/lda/reference_sampler.hpp — the textbook collapsed Gibbs sampler, the yardstick tests and benchmarks measure gyre-lda against.
#pragma once

#include <chrono>
#include <cmath>
#include <functional>
#include <cstdint>
#include <random>
#include <vector>

#include "gyre/data/corpus.hpp"

namespace gyre::lda {

// Joint log p(w, z) of a state given as counts, written out plainly (no tables, no skipping
// of zeros) so that it also checks the kernel's bookkeeping of the same quantity.
inline double joint_loglik(const std::vector<std::int64_t>& nwk, const std::vector<std::int64_t>& ndk,
                    const std::vector<std::int64_t>& nk, const std::vector<std::int64_t>& doc_len, std::size_t K,
                    std::size_t V, double alpha, double beta) {
  double ll = 0;
  for (std::size_t k = 0; k < K; ++k) {
    ll += std::lgamma(V * beta) - std::lgamma(static_cast<double>(nk[k]) + V * beta);
    for (std::size_t w = 0; w < V; ++w) ll += std::lgamma(static_cast<double>(nwk[w * K + k]) + beta) - std::lgamma(beta);
  }
  for (std::size_t d = 0; d < doc_len.size(); ++d) {
    ll += std::lgamma(K * alpha) - std::lgamma(static_cast<double>(doc_len[d]) + K * alpha);
    for (std::size_t k = 0; k < K; ++k) ll += std::lgamma(static_cast<double>(ndk[d * K + k]) + alpha) - std::lgamma(alpha);
  }
  return ll;
}

// The textbook sampler (Griffiths & Steyvers 2004): one thread, every token's full O(K)
// conditional, exact counts. Returns log-likelihood per token after each epoch (index 0: start);
// on_sweep(epoch, seconds) is told each sweep's sampling time (the likelihood excluded).
inline std::vector<double> reference_sampler(const data::Corpus& c, std::size_t K, double alpha, double beta, int epochs,
                                             std::uint64_t seed,
                                             const std::function<void(int, double)>& on_sweep = {}) {
  const std::size_t V = c.vocab_size();
  std::vector<std::int64_t> nwk(V * K, 0), ndk(c.docs() * K, 0), nk(K, 0), len(c.docs());
  std::vector<std::uint32_t> z(c.tokens());
  std::mt19937_64 rng(seed);
  for (std::uint64_t d = 0; d < c.docs(); ++d) {
    len[d] = static_cast<std::int64_t>(c.doc(d).size());
    for (std::uint64_t i = c.doc_begin[d]; i < c.doc_begin[d + 1]; ++i) {
      z[i] = static_cast<std::uint32_t>(rng() % K);
      ++nwk[c.words[i] * K + z[i]];
      ++ndk[d * K + z[i]];
      ++nk[z[i]];
    }
  }
  std::vector<double> out{joint_loglik(nwk, ndk, nk, len, K, V, alpha, beta) / static_cast<double>(c.tokens())};
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  std::vector<double> p(K);
  for (int e = 0; e < epochs; ++e) {
    const auto start = std::chrono::steady_clock::now();
    for (std::uint64_t d = 0; d < c.docs(); ++d)
      for (std::uint64_t i = c.doc_begin[d]; i < c.doc_begin[d + 1]; ++i) {
        const std::size_t w = c.words[i];
        std::size_t k = z[i];
        --nwk[w * K + k], --ndk[d * K + k], --nk[k];
        double sum = 0;
        for (std::size_t j = 0; j < K; ++j) {
          sum += (ndk[d * K + j] + alpha) * (nwk[w * K + j] + beta) / (nk[j] + V * beta);
          p[j] = sum;
        }
        const double u = uniform(rng) * sum;
        k = 0;
        while (k + 1 < K && p[k] <= u) ++k;
        z[i] = static_cast<std::uint32_t>(k);
        ++nwk[w * K + k], ++ndk[d * K + k], ++nk[k];
      }
    if (on_sweep) on_sweep(e + 1, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    out.push_back(joint_loglik(nwk, ndk, nk, len, K, V, alpha, beta) / static_cast<double>(c.tokens()));
  }
  return out;
}

}  // namespace gyre::lda
