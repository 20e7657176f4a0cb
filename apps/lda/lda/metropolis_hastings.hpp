// apps/lda/lda/metropolis_hastings.hpp — the sampler's Metropolis-Hastings steps: a proposal drawn from a row, a chain walked over proposals.
#pragma once

#include <bit>
#include <cstdint>
#include <vector>

#include "lda/random.hpp"

namespace gyre::lda {

// A topic drawn in proportion to n_k + prior over one row: `n` (at least 1) of its mass in
// `pick(i)`, a topic per unit, the rest (K · prior) uniform. One draw of the generator gives a
// 32-bit coin, compared with the row's share of the mass (RowShare), and 32 bits that pick both
// a unit of the row and a uniform topic by multiply-shift; both candidates are computed and one
// selected, since which one is a coin toss the branch predictor would miss. All integer: the
// floating-point form spent most of a proposal in conversions.
struct RowShare {
  std::uint64_t n;          // the row's units
  std::uint64_t threshold;  // 2^32 · n / (n + K · prior): a coin below it takes the row
  RowShare(std::uint64_t units, double prior, std::uint32_t K)
      : n(units), threshold(static_cast<std::uint64_t>(0x1p32 * static_cast<double>(units) / (static_cast<double>(units) + K * prior))) {}
};

template <class Pick>
inline std::uint32_t draw(Rng& rng, const RowShare& row, std::uint32_t K, Pick pick) {
  const std::uint64_t bits = rng.next();
  const std::uint64_t low = bits & 0xffffffffu;
  const std::uint32_t from_row = pick((low * row.n) >> 32);
  const auto uniform = static_cast<std::uint32_t>((low * K) >> 32);
  return (bits >> 32) < row.threshold ? from_row : uniform;
}

// A cell's view of the topic totals n_k for one pass: the counts are kept live (the cells'
// changes are folded after the round), but the walks weigh by 1/(n_k + Vβ) as the pass began,
// the totals' delayed update in WarpLDA's manner. Keeping the inverses live cost two divisions
// a token, each on the chain's critical path; a token moves a total by 1 in thousands, and
// held this way the sampler is both faster and no worse a sweep (SpamAssassin, M = 4, T = 2,
// three seeds each: 1.06-1.10× the tokens a second at K = 100 and 1000, the log-likelihood
// after 6 sweeps 0.1-0.3% better).
class TotalsView {
 public:
  TotalsView(std::int64_t* totals, std::uint32_t K, double vbeta) : n_(totals), inverse_(K) {
    for (std::uint32_t k = 0; k < K; ++k) inverse_[k] = 1 / (static_cast<double>(n_[k]) + vbeta);
  }
  void remove(std::uint32_t k) { --n_[k]; }
  void add(std::uint32_t k) { ++n_[k]; }
  double inverse(std::uint32_t k) const { return inverse_[k]; }
  // Brings topic k's total and weight towards the cache, for a token sampled soon.
  void prefetch(std::uint32_t k) const {
    __builtin_prefetch(n_ + k, 1);
    __builtin_prefetch(inverse_.data() + k);
  }

 private:
  std::int64_t* n_;
  std::vector<double> inverse_;
};

// One Metropolis-Hastings chain over a token's proposals (`steps` of them), from s, against a
// target whose ratio to the proposal is w(k) = (n_k + prior)/(n_k + Vβ), n_k from `counts`, the
// count matrix the proposals did not come from. Each proposal's weight depends on nothing the
// chain decides, so the loads of all steps overlap; what is left in the chain is a compare and
// two selects, with no branch on an outcome that is close to a coin toss.
template <class Topic>
inline std::uint32_t walk(Rng& rng, std::uint32_t s, const Topic* proposed, int steps,
                          const std::int32_t* counts, double prior, const TotalsView& totals) {
  const auto weight = [&](std::uint32_t k) { return (counts[k] + prior) * totals.inverse(k); };
  double w_s = weight(s);
  for (int j = 0; j < steps; ++j) {
    const std::uint32_t t = proposed[j];
    const double w_t = weight(t);
    // The selects by mask: written as `accept ? t : s`, GCC branches on the acceptance, which
    // mispredicts about as often as a proposal is taken.
    const std::uint64_t take = 0 - static_cast<std::uint64_t>(rng.uniform32() * w_s < w_t);
    s = static_cast<std::uint32_t>((t & take) | (s & ~take));
    w_s = std::bit_cast<double>((std::bit_cast<std::uint64_t>(w_t) & take) | (std::bit_cast<std::uint64_t>(w_s) & ~take));
  }
  return s;
}

}  // namespace gyre::lda
