// apps/lasso/lasso/anderson.hpp — Anderson extrapolation of coordinate-descent sweeps: a point further along the line the last sweeps were taking.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <vector>

namespace gyre::lasso {

// Cyclic coordinate descent on an ill-conditioned problem (correlated columns: words that come
// together in mails) converges linearly and slowly: on the SpamAssassin design at 0.01·λ_max
// each hundredfold of accuracy took ~145 sweeps of the same 379 coordinates. The sweeps are a
// fixed-point map x ↦ T(x) on those coordinates, and Anderson's method (Bertrand and Massias,
// "Anderson acceleration of coordinate descent", AISTATS 2021) extrapolates it: from the last
// K + 1 iterates x₀ … x_K, with U = [x₁ − x₀, …, x_K − x_{K−1}], the weights c that make ‖Uc‖
// least with Σ c_i = 1 give the point Σ c_i x_i that the differences say the iterates are
// heading to. The caller takes it only if it lowers F (it need not), so every accepted point is
// a descent.
class AndersonExtrapolation {
 public:
  explicit AndersonExtrapolation(std::size_t depth = 5) : depth_(depth) {}

  // Forgets the history: the next iterate starts a new one (the coordinates changed).
  void restart() { history_.clear(); }
  // Records the iterate `x` (the same coordinates in the same order since the last restart).
  // Every `depth` iterates after the first it returns the extrapolated point and starts a new
  // history from `x`; a history whose differences are degenerate (or not numbers) gives nothing.
  std::optional<std::vector<double>> record(std::span<const double> x);

 private:
  std::size_t depth_;
  std::vector<std::vector<double>> history_;
};

}  // namespace gyre::lasso
