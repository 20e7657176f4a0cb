// apps/lasso/lasso/active_set_cycle.hpp — the loop of a worker's cycle (glmnet's: a full sweep, then sweeps over what moved, then a full sweep again) and how deep it goes.
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

namespace gyre::lasso {

// A cycle stops when a sweep's largest decrease of F falls below a threshold; a check then
// decides. The first cycle of a λ stops 10⁴ times above the threshold: its active set is a
// guess (the check after it adds the violators it missed) and sweeping a guess to the full
// depth wastes sweeps (on tools/bench/lasso's correlated problem 49k updates to the target
// instead of 30k). The worker's very first cycle, from β = 0, stops 10¹² times above it, as
// good as after its first sweeps: its guess (every violator at zero) is far from the support,
// and the checks that follow are cheaper than the sweeps they spare. On the 100k × 100k
// problem at 0.01·λ_max that took the updates to the target from 233k to 111k, on the mails
// 144k to 68k, and with the logistic loss at 0.1·λ_max 2.08M to 355k; on a warm-started path
// (20 λs) it cost 65 more checks and 60% more time, so it is for the cold start only. On an
// ill-conditioned problem a small decrease can still be far from the optimum, and a fixed
// depth would buy one more check per cycle; so a cycle asked again at the same λ goes a
// hundred times deeper than the last, down to 10⁻¹² of the threshold (ten times took 15
// checks on the diabetes table at tol 1e-9, a hundred 9).
class CycleTolerance {
 public:
  double next(double lambda, double threshold) {
    if (lambda == lambda_) factor_ = std::max(factor_ * 0.01, 1e-12);
    else factor_ = lambda_ < 0 ? 1e12 : 1e4;
    lambda_ = lambda;
    return threshold * factor_;
  }
  // For checkpoints: the λ of the last cycle and how deep it went.
  double lambda() const noexcept { return lambda_; }
  double factor() const noexcept { return factor_; }
  void restore(double lambda, double factor) noexcept {
    lambda_ = lambda;
    factor_ = factor;
  }

 private:
  double lambda_ = -1;
  double factor_ = 1;
};

struct CoordinateMove {
  double decrease = 0;   // F's decrease, to second order (0 if it did not move)
  bool nonzero = false;  // the coordinate is not zero after the step
};

// active_set_cycle()'s extrapolate when there is none.
struct NoExtrapolation {
  void operator()(std::span<const std::uint32_t>, bool) const noexcept {}
};

// Coordinate descent over `coordinates` as glmnet runs it: a sweep over all of them, then
// sweeps over those that are not zero until a sweep's largest decrease is at most `enough`,
// then a full sweep again, which ends the cycle if it moves nothing more than that. Most of a
// large first active set (the check's violators at zero) stays zero once the others have moved,
// and need not be swept again. step(j) takes coordinate j's step; after_sweep() any step of the
// sweep's end (an intercept), returning its decrease. Between sweeps over the moving set,
// extrapolate(moving, restart) may move the iterate further along (AndersonExtrapolation);
// restart is true when the moving set changed (after a full sweep, or a drop below). Returns
// the number of steps taken, at most max_sweeps sweeps' worth.
//
// With `drop_zeros` a coordinate that a sweep over the moving set leaves at zero leaves that set
// until the next full sweep. At 0.01·λ_max on the 100k × 100k problem the first full sweep
// leaves 18,123 of 35,781 coordinates moving, most of which end at zero: dropping them took the
// updates to the target from 396k to 233k (spam: 198k to 150k). The logistic loss's IRLS
// models did worse with it (2.83M updates against 2.82M, 12% slower), so it is the caller's choice.
template <class Step, class AfterSweep, class Extrapolate = NoExtrapolation>
std::uint64_t active_set_cycle(std::span<const std::uint32_t> coordinates, double enough, std::uint64_t max_sweeps,
                               bool drop_zeros, Step&& step, AfterSweep&& after_sweep, Extrapolate&& extrapolate = {}) {
  std::vector<std::uint32_t> moving;
  std::uint64_t updates = 0;
  bool full = true;
  for (std::uint64_t sweep = 0; sweep < max_sweeps; ++sweep) {
    double largest = 0;
    bool restart = full;
    if (full) {
      moving.clear();
      for (const std::uint32_t j : coordinates) {
        const CoordinateMove m = step(j);
        largest = std::max(largest, m.decrease);
        if (m.nonzero) moving.push_back(j);
      }
      updates += coordinates.size();
    } else {
      std::size_t kept = 0;
      for (const std::uint32_t j : moving) {
        const CoordinateMove m = step(j);
        largest = std::max(largest, m.decrease);
        if (m.nonzero || !drop_zeros) moving[kept++] = j;
      }
      updates += moving.size();
      restart = kept < moving.size();
      moving.resize(kept);
    }
    largest = std::max(largest, after_sweep());
    if (largest <= enough) {
      if (full) break;
      full = true;  // the moving set has converged: does anything else move now?
    } else {
      extrapolate(std::span<const std::uint32_t>(moving), restart);
      full = false;
    }
  }
  return updates;
}

}  // namespace gyre::lasso
