// gyre/rounds/dependency_check.cpp — the candidates' correlations with what is in flight, from inner products asked of a source.
#include "gyre/rounds/scheduling.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace gyre::rounds {

DependencyCheck::DependencyCheck(InnerProducts& source, std::uint64_t samples, std::vector<double> mean,
                                 std::vector<double> inverse_norm, double rho, std::uint32_t gram_features)
    : source_(source), rho_(rho), samples_(samples), mean_(std::move(mean)), inverse_norm_(std::move(inverse_norm)) {
  const auto m = static_cast<std::uint32_t>(mean_.size());
  if (inverse_norm_.size() != m) throw std::invalid_argument("dependency check: a mean and an inverse norm per column");
  if (!enabled()) return;
  gram_ = m <= gram_features;
  if (gram_) correlations_.resize(m);
  slot_.assign(m, 0);
  flying_.assign(m, 0);
}

void DependencyCheck::fetch_gram(std::span<const std::uint32_t> fresh) {
  std::vector<std::uint32_t> unseen;
  for (const std::uint32_t j : fresh)
    if (correlations_[j].empty() && std::find(unseen.begin(), unseen.end(), j) == unseen.end()) unseen.push_back(j);
  if (unseen.empty()) return;
  const std::vector<std::vector<double>> dots = source_.sampled_gram(unseen);
  const std::uint64_t stride = gram_stride(samples_);
  const double n = static_cast<double>((samples_ + stride - 1) / stride);  // rows summed over
  const auto m = static_cast<std::uint32_t>(mean_.size());
  for (std::size_t c = 0; c < unseen.size(); ++c) {
    const std::uint32_t j = unseen[c];
    std::vector<float>& out = correlations_[j];
    out.resize(m);
    for (std::uint32_t k = 0; k < m; ++k)
      out[k] = static_cast<float>((dots[c][k] / n - mean_[j] * mean_[k]) * inverse_norm_[j] * inverse_norm_[k]);
  }
}

bool DependencyCheck::conflicts_by_gram(std::uint32_t j) const {
  const std::vector<float>& corr = correlations_[j];
  for (std::uint32_t k : in_flight_)
    if (std::abs(corr[k]) >= rho_) return true;
  return false;
}

std::vector<std::uint32_t> DependencyCheck::keep(std::span<const std::uint32_t> candidates,
                                                 std::vector<std::uint8_t>& busy) {
  std::vector<std::uint32_t> kept;
  kept.reserve(candidates.size());
  std::vector<std::uint32_t> fresh;  // the candidates the check looks at
  for (const std::uint32_t j : candidates)
    if (!busy[j]) fresh.push_back(j);
  // Wide mode: each fresh candidate's products with the coordinates in flight and the earlier
  // candidates, by candidate; one question for the batch.
  std::vector<std::vector<SharedProduct>> products;
  if (enabled() && gram_) {
    fetch_gram(fresh);
  } else if (enabled() && !fresh.empty() && !source_.answers_at_once()) {
    products.resize(fresh.size());
    for (const SharedProduct& p : source_.shared(fresh, in_flight_)) products[p.candidate].push_back(p);
  }
  const double n = static_cast<double>(samples_);
  std::vector<SharedProduct> one;  // a candidate's, asked at once
  for (std::size_t c = 0; c < fresh.size(); ++c) {
    const std::uint32_t j = fresh[c];
    if (busy[j]) continue;  // listed twice
    if (enabled() && gram_ && conflicts_by_gram(j)) continue;
    if (enabled() && !gram_) {
      if (source_.answers_at_once()) {
        one.clear();
        source_.products_in_flight(j, one);
      }
      const std::vector<SharedProduct>& mine = source_.answers_at_once() ? one : products[c];
      const double limit = rho_ / inverse_norm_[j];
      const bool conflict = std::any_of(mine.begin(), mine.end(), [&](const SharedProduct& p) {
        const std::uint32_t k = p.column;
        return flying_[k] && std::abs(p.dot / n - mean_[j] * mean_[k]) * inverse_norm_[k] >= limit;
      });
      if (conflict) continue;
    }
    if (enabled()) {
      slot_[j] = static_cast<std::uint32_t>(in_flight_.size());
      in_flight_.push_back(j);
      flying_[j] = 1;
      if (!gram_ && source_.answers_at_once()) source_.fly(j);
    }
    busy[j] = 1;
    kept.push_back(j);
  }
  return kept;
}

void DependencyCheck::release(std::uint32_t j) {
  if (!enabled() || !flying_[j]) return;
  const std::uint32_t last = in_flight_.back();
  in_flight_[slot_[j]] = last;
  slot_[last] = slot_[j];
  in_flight_.pop_back();
  flying_[j] = 0;
  if (!gram_ && source_.answers_at_once()) source_.land(j);
}

}  // namespace gyre::rounds
