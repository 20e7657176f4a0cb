// apps/lasso/lasso/cycle_tolerance.hpp — how far a worker's active-set cycle goes: tighter each time the same λ comes back unconverged.
#pragma once

#include <algorithm>

namespace gyre::lasso {

// A cycle stops when a sweep's largest decrease of F falls below a threshold; a check then
// decides. The first cycle of a λ stops 10⁴ times above the threshold: its active set is a
// guess (the check after it adds the violators it missed) and sweeping a guess to the full
// depth wastes sweeps (on tools/bench/lasso's correlated problem 49k updates to the target
// instead of 30k). On an ill-conditioned problem a small decrease can still be far from the
// optimum, and a fixed depth would buy one more check per cycle; so a cycle asked again at the
// same λ goes ten times deeper than the last, down to 10⁻¹² of the threshold.
class CycleTolerance {
 public:
  double next(double lambda, double threshold) {
    factor_ = lambda == lambda_ ? std::max(factor_ * 0.1, 1e-12) : 1e4;
    lambda_ = lambda;
    return threshold * factor_;
  }

 private:
  double lambda_ = -1;
  double factor_ = 1;
};

}  // namespace gyre::lasso
