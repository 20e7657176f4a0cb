// gyre/data/alias_table.hpp — Vose's alias method over gyre::Random, for the data generators (internal to lib/, not installed).
#pragma once

#include <cstdint>
#include <vector>

#include "gyre/base/random.hpp"

namespace gyre::data {

// Vose's alias method: O(1) draws from a discrete law, which matters at 20M draws.
class AliasTable {
 public:
  explicit AliasTable(const std::vector<double>& weights) : prob_(weights.size()), alias_(weights.size()) {
    const std::size_t n = weights.size();
    double sum = 0;
    for (const double w : weights) sum += w;
    std::vector<double> scaled(n);
    std::vector<std::uint32_t> small, large;
    for (std::size_t i = 0; i < n; ++i) {
      scaled[i] = weights[i] * static_cast<double>(n) / sum;
      (scaled[i] < 1.0 ? small : large).push_back(static_cast<std::uint32_t>(i));
    }
    while (!small.empty() && !large.empty()) {
      const std::uint32_t s = small.back(), l = large.back();
      small.pop_back();
      prob_[s] = scaled[s];
      alias_[s] = l;
      scaled[l] -= 1.0 - scaled[s];
      if (scaled[l] < 1.0) {
        large.pop_back();
        small.push_back(l);
      }
    }
    for (const std::uint32_t i : large) prob_[i] = 1.0, alias_[i] = i;
    for (const std::uint32_t i : small) prob_[i] = 1.0, alias_[i] = i;  // rounding leftovers
  }

  std::uint32_t draw(Random& rng) const {
    const auto i = static_cast<std::uint32_t>(rng.below(prob_.size()));
    return rng.uniform() < prob_[i] ? i : alias_[i];
  }

 private:
  std::vector<double> prob_;
  std::vector<std::uint32_t> alias_;
};

}  // namespace gyre::data
