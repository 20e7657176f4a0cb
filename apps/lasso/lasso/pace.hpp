// apps/lasso/lasso/pace.hpp — how much the rounds send at once (batch and depth), slowed when stale steps overshoot.
#pragma once

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace gyre::lasso {

// Batch U: coordinates per round; depth: rounds in flight. Steps from stale sums can overshoot
// on correlated columns: an interval that made F worse halves the batch (then the depth) until
// one no longer does. An interval that multiplied F (or left it no number) went past what
// shrinking repairs: the iterate is then far from any solution and only climbs, so the solve
// stops and says why.
class Pace {
 public:
  // The most an interval may multiply F before the solve is taken to have diverged.
  static constexpr double kMaxGrowth = 10;

  Pace(std::uint32_t batch, int depth) : batch_(batch), depth_(std::max(1, depth)) {}

  std::uint32_t batch() const { return batch_; }
  int depth() const { return depth_; }

  // After an interval's check: F went from `before` to `now` at `lambda` (`rho`: the dependency
  // check's threshold, for the advice).
  void after_interval(double before, double now, double lambda, double rho) {
    if (!(now <= before * kMaxGrowth))
      throw std::runtime_error(
          "the solve diverged at lambda " + std::to_string(lambda) + ": one interval of rounds took the "
          "objective from " + std::to_string(before) + " to " + std::to_string(now) + " (batch " +
          std::to_string(batch_) + ", depth " + std::to_string(depth_) + ", --rho " + std::to_string(rho) +
          "); steps from stale sums overshoot on correlated columns: a smaller --batch or --depth, or the "
          "dependency check (--rho below 1), keeps them in bounds. No coefficients are written");
    if (now > before * (1 + 1e-12)) {
      if (batch_ > 1) batch_ = std::max<std::uint32_t>(1, batch_ / 2);
      else depth_ = std::max(1, depth_ / 2);
    }
  }

  // A checkpoint's: as they were; false for a pace no run could have.
  bool restore(std::uint32_t batch, int depth) {
    batch_ = batch;
    depth_ = depth;
    return batch_ >= 1 && depth_ >= 1;
  }

 private:
  std::uint32_t batch_;
  int depth_;
};

}  // namespace gyre::lasso
