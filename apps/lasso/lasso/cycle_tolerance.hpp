// apps/lasso/lasso/cycle_tolerance.hpp — how far a worker's active-set cycle goes: tighter each time the same λ comes back unconverged.
#pragma once

#include <algorithm>

namespace gyre::lasso {

// A cycle stops when a sweep's largest decrease of F falls below a threshold; a check then
// decides. On an ill-conditioned problem a decrease that small can still be far from the
// optimum, and a fixed threshold would buy one more check per cycle; so a cycle asked again at
// the same λ goes ten times deeper than the last, down to rounding.
class CycleTolerance {
 public:
  double next(double lambda, double threshold) {
    factor_ = lambda == lambda_ ? std::max(factor_ * 0.1, 1e-12) : 1.0;
    lambda_ = lambda;
    return threshold * factor_;
  }

 private:
  double lambda_ = -1;
  double factor_ = 1;
};

}  // namespace gyre::lasso
