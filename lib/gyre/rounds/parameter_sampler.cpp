// gyre/rounds/parameter_sampler.cpp — sum tree sampling without replacement, permutations, warm-up.
#include "gyre/rounds/scheduling.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <string>

#include "gyre/base/random.hpp"

namespace gyre::rounds {

namespace {
constexpr double kMassLeft = 0.01;  // share of the priority mass a round may leave undrawn

// splitmix64 (gyre/base/random.hpp): a seed means the same schedule everywhere.
double uniform01(std::uint64_t& state) { return unit_double(splitmix64(state)); }

void shuffle(std::vector<std::uint32_t>& v, std::uint64_t& state) {
  for (std::size_t i = v.size(); i > 1; --i) std::swap(v[i - 1], v[splitmix64(state) % i]);
}
}  // namespace

SumTree::SumTree(std::uint32_t size) : size_(size), leaves_(1) {
  while (leaves_ < std::max<std::uint32_t>(size, 1)) leaves_ *= 2;
  tree_.assign(2 * static_cast<std::size_t>(leaves_), 0.0);
}

void SumTree::set(std::uint32_t i, double weight) {
  std::size_t node = leaves_ + i;
  tree_[node] = weight;
  // Recomputing the sums (not adding a difference) keeps rounding from piling up.
  for (node /= 2; node >= 1; node /= 2) tree_[node] = tree_[2 * node] + tree_[2 * node + 1];
}

void SumTree::assign(std::span<const double> weights) {
  std::copy(weights.begin(), weights.end(), tree_.begin() + leaves_);
  for (std::size_t node = leaves_ - 1; node >= 1; --node) tree_[node] = tree_[2 * node] + tree_[2 * node + 1];
}

std::uint32_t SumTree::find(double u) const {
  std::size_t node = 1;
  while (node < leaves_) {
    const double left = tree_[2 * node];
    if (u < left || tree_[2 * node + 1] <= 0) {
      node = 2 * node;
    } else {
      u -= left;
      node = 2 * node + 1;
    }
  }
  return static_cast<std::uint32_t>(std::min<std::size_t>(node - leaves_, size_ - 1));
}

ParameterSampler::ParameterSampler(ParameterOrder kind, std::vector<std::uint8_t> usable, double eta,
                                     std::uint64_t seed, double warmup_sweeps)
    : kind_(kind), features_(static_cast<std::uint32_t>(usable.size())), usable_(std::move(usable)),
      in_round_(features_, 0), eta_(eta),
      warmup_(static_cast<std::uint64_t>(std::max(0.0, warmup_sweeps) * features_)), rng_(seed), order_(features_), weights_(features_), held_(features_, 0.0) {
  std::iota(order_.begin(), order_.end(), 0u);
  if (kind_ != ParameterOrder::cyclic) shuffle(order_, rng_);
}

bool ParameterSampler::warming_up() const noexcept {
  return kind_ == ParameterOrder::priority && proposed_ < warmup_;
}

double ParameterSampler::floor() const noexcept {
  return eta_ * (largest_step_ > 0 ? largest_step_ : 1.0);
}

void ParameterSampler::fill_tree() {
  std::vector<double> w(features_);
  for (std::uint32_t j = 0; j < features_; ++j) w[j] = usable_[j] ? std::max(held_[j], floor()) : 0.0;
  weights_.assign(w);
}

// Cyclic, random, and the priority schedule's uniform warm-up sweep: the next coordinates of
// the order, at most one lap per round, never one twice in a round.
std::vector<std::uint32_t> ParameterSampler::propose_in_order(std::uint32_t count,
                                                               const std::vector<std::uint8_t>& skip) {
  std::vector<std::uint32_t> out;
  // Coordinates the dependency check turned away go first: in a fixed order the same partner
  // would be in flight every lap, and they would never be updated.
  std::vector<std::uint32_t> still_deferred;
  for (std::uint32_t j : deferred_) {
    if (out.size() < count && !skip[j] && !in_round_[j]) {
      in_round_[j] = 1;
      out.push_back(j);
    } else {
      still_deferred.push_back(j);
    }
  }
  deferred_ = std::move(still_deferred);
  for (std::uint32_t advanced = 0; out.size() < count && advanced < features_; ++advanced) {
    const std::uint32_t j = order_[cursor_];
    if (++cursor_ == features_) {
      cursor_ = 0;
      if (kind_ != ParameterOrder::cyclic) shuffle(order_, rng_);
    }
    if (skip[j] || !usable_[j] || in_round_[j]) continue;
    in_round_[j] = 1;
    out.push_back(j);
  }
  for (std::uint32_t j : out) in_round_[j] = 0;
  return out;
}

std::vector<std::uint32_t> ParameterSampler::propose(std::uint32_t count, const std::vector<std::uint8_t>& skip) {
  if (kind_ != ParameterOrder::priority || warming_up()) {
    std::vector<std::uint32_t> out = propose_in_order(count, skip);
    proposed_ += out.size();
    if (kind_ == ParameterOrder::priority && !warming_up()) {
      // The warm-up has just ended: every coordinate enters the tree at its last step (or the
      // floor); those just proposed wait, like all proposals, until they are stepped.
      fill_tree();
      for (std::uint32_t j : out) weights_.set(j, 0);
    }
    return out;
  }
  std::vector<std::uint32_t> out;
  out.reserve(count);
  // A round stops early once it holds nearly all the priority mass: when a few coordinates
  // carry it, drawing on would only fill the round with coordinates at the floor.
  const double enough = weights_.total() * (1 - kMassLeft);
  double drawn = 0;
  while (out.size() < count && weights_.total() > 0 && drawn < enough) {
    const std::uint32_t j = weights_.find(uniform01(rng_) * weights_.total());
    if (weights_.get(j) <= 0) break;  // only rounding can land here
    drawn += weights_.get(j);
    weights_.set(j, 0);
    if (skip[j]) continue;  // in flight: back in the tree when it is stepped
    out.push_back(j);
  }
  proposed_ += out.size();
  return out;
}

void ParameterSampler::step(std::uint32_t j, double delta) {
  largest_step_ = std::max(largest_step_, std::abs(delta));
  held_[j] = std::abs(delta) + floor();
  if (kind_ == ParameterOrder::priority && !warming_up()) weights_.set(j, held_[j]);
}

void ParameterSampler::restore(std::span<const std::uint32_t> dropped) {
  if (kind_ != ParameterOrder::priority || warming_up()) {
    deferred_.insert(deferred_.end(), dropped.begin(), dropped.end());
    return;
  }
  for (std::uint32_t j : dropped) weights_.set(j, std::max(held_[j], floor()));
}

void ParameterSampler::reprioritise(std::span<const double> predicted_steps) {
  if (kind_ != ParameterOrder::priority) return;
  // The floor follows the steps of now, not the large ones of the first sweeps, or it would
  // swamp the priorities as the steps shrink.
  largest_step_ = 0;
  for (std::uint32_t j = 0; j < features_; ++j)
    if (usable_[j]) largest_step_ = std::max(largest_step_, std::abs(predicted_steps[j]));
  for (std::uint32_t j = 0; j < features_; ++j) held_[j] = std::abs(predicted_steps[j]) + floor();
  if (!warming_up()) fill_tree();
}

ParameterSampler::State ParameterSampler::state() const {
  State s{rng_, order_, cursor_, proposed_, largest_step_, std::vector<double>(features_), held_, deferred_};
  for (std::uint32_t j = 0; j < features_; ++j) s.weights[j] = weights_.get(j);
  return s;
}

void ParameterSampler::restore(const State& s) {
  const auto fits = [&](std::size_t size) { return size == features_; };
  if (!fits(s.order.size()) || !fits(s.weights.size()) || !fits(s.held.size()) || s.cursor >= std::max(features_, 1u) ||
      s.deferred.size() > features_)
    throw std::invalid_argument("a parameter sampler's state for " + std::to_string(s.order.size()) +
                                " parameters, this one has " + std::to_string(features_));
  for (const std::uint32_t j : s.order)
    if (j >= features_) throw std::invalid_argument("a parameter sampler's state naming parameter " + std::to_string(j));
  for (const std::uint32_t j : s.deferred)
    if (j >= features_) throw std::invalid_argument("a parameter sampler's state naming parameter " + std::to_string(j));
  rng_ = s.rng;
  order_ = s.order;
  cursor_ = s.cursor;
  proposed_ = s.proposed;
  largest_step_ = s.largest_step;
  weights_.assign(s.weights);
  held_ = s.held;
  deferred_ = s.deferred;
}

}  // namespace gyre::rounds
