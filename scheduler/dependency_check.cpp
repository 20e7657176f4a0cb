// scheduler/dependency_check.cpp — a row index of the in-flight columns, walked by each candidate.
#include "gyre/scheduler/dependency_check.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace gyre::scheduler {

DependencyCheck::DependencyCheck(SparseLines rows, SparseLines columns, std::vector<double> mean,
                                 std::vector<double> inverse_norm, double rho)
    : rows_(rows), columns_(columns), rho_(rho), samples_(rows.lines()), mean_(std::move(mean)),
      inverse_norm_(std::move(inverse_norm)) {
  const auto m = static_cast<std::uint32_t>(columns.lines());
  if (mean_.size() != m || inverse_norm_.size() != m)
    throw std::invalid_argument("dependency check: a mean and an inverse norm per column");
  if (!enabled()) return;
  dot_.assign(m, 0.0);
  gram_ = m <= kGramFeatures;
  if (gram_) {
    correlations_.resize(m);
    slot_.assign(m, 0);
  } else {
    occupants_.assign(samples_, 0);
    first_.resize(samples_);
    more_.resize(samples_);
  }
}

const std::vector<float>& DependencyCheck::gram_column(std::uint32_t j) {
  std::vector<float>& out = correlations_[j];
  if (!out.empty()) return out;
  const std::uint32_t m = static_cast<std::uint32_t>(columns_.lines());
  const std::uint64_t stride = (samples_ + kGramRows - 1) / kGramRows;
  for (std::uint64_t e = columns_.begin[j]; e < columns_.begin[j + 1]; ++e) {
    const std::uint64_t i = columns_.index[e];
    if (i % stride != 0) continue;
    const double x = columns_.values[e];
    for (std::uint64_t f = rows_.begin[i]; f < rows_.begin[i + 1]; ++f) dot_[rows_.index[f]] += x * rows_.values[f];
  }
  const double n = static_cast<double>((samples_ + stride - 1) / stride);  // rows summed over
  out.resize(m);
  for (std::uint32_t k = 0; k < m; ++k) {
    out[k] = static_cast<float>((dot_[k] / n - mean_[j] * mean_[k]) * inverse_norm_[j] * inverse_norm_[k]);
    dot_[k] = 0;
  }
  return out;
}

bool DependencyCheck::conflicts_by_gram(std::uint32_t j) {
  const std::vector<float>& corr = gram_column(j);
  for (std::uint32_t k : in_flight_)
    if (std::abs(corr[k]) >= rho_) return true;
  return false;
}

void DependencyCheck::walk_row(std::uint64_t row, double x) {
  auto add = [&](const Entry& other) {
    if (dot_[other.column] == 0) touched_.push_back(other.column);
    dot_[other.column] += x * other.value;
  };
  add(first_[row]);
  if (occupants_[row] > 1)
    for (const Entry& other : more_[row]) add(other);
}

bool DependencyCheck::conflicts(std::uint32_t j) {
  for (std::uint64_t e = columns_.begin[j]; e < columns_.begin[j + 1]; ++e)
    if (occupants_[columns_.index[e]] > 0) walk_row(columns_.index[e], columns_.values[e]);
  const double n = static_cast<double>(samples_);
  const double limit = rho_ / inverse_norm_[j];
  bool found = false;
  for (std::uint32_t k : touched_) {
    const double centred = dot_[k] / n - mean_[j] * mean_[k];
    if (std::abs(centred) * inverse_norm_[k] >= limit) found = true;
    dot_[k] = 0;
  }
  touched_.clear();
  return found;
}

std::vector<std::uint32_t> DependencyCheck::keep(std::span<const std::uint32_t> candidates,
                                                 std::vector<std::uint8_t>& busy) {
  std::vector<std::uint32_t> kept;
  kept.reserve(candidates.size());
  for (std::uint32_t j : candidates) {
    if (busy[j]) continue;
    if (enabled() && gram_) {
      if (conflicts_by_gram(j)) continue;
      slot_[j] = static_cast<std::uint32_t>(in_flight_.size());
      in_flight_.push_back(j);
    } else if (enabled()) {
      if (conflicts(j)) continue;
      for (std::uint64_t e = columns_.begin[j]; e < columns_.begin[j + 1]; ++e) {
        const std::uint64_t row = columns_.index[e];
        if (occupants_[row]++ == 0) first_[row] = {j, columns_.values[e]};
        else more_[row].push_back({j, columns_.values[e]});
      }
    }
    busy[j] = 1;
    kept.push_back(j);
  }
  return kept;
}

void DependencyCheck::release(std::uint32_t j) {
  if (!enabled()) return;
  if (gram_) {
    const std::uint32_t last = in_flight_.back();
    in_flight_[slot_[j]] = last;
    slot_[last] = slot_[j];
    in_flight_.pop_back();
    return;
  }
  for (std::uint64_t e = columns_.begin[j]; e < columns_.begin[j + 1]; ++e) {
    const std::uint64_t row = columns_.index[e];
    auto& rest = more_[row];
    --occupants_[row];
    if (first_[row].column == j) {
      if (!rest.empty()) {
        first_[row] = rest.back();
        rest.pop_back();
      }
      continue;
    }
    const auto it = std::find_if(rest.begin(), rest.end(), [j](const Entry& x) { return x.column == j; });
    *it = rest.back();
    rest.pop_back();
  }
}

}  // namespace gyre::scheduler
