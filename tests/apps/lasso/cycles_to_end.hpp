// tests/apps/lasso/cycles_to_end.hpp — a worker's cycles at one λ asked again and again, as the scheduler asks them between checks, until they stop moving.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <span>
#include <vector>

namespace gyre_test {

// Each cycle at the same λ goes a hundred times deeper than the last (CycleTolerance; the
// worker's first one is shallow), so a cycle alone is not the solve: this asks `shard` for
// cycles over `params` until one moves no coefficient by more than 1e-12 of its size (at most
// `most` cycles; far below that, cycles only chase rounding). Returns the last cycle's
// coefficients, then the coordinate updates of all of them.
template <class Shard>
std::vector<double> cycles_to_end(Shard& shard, double lambda, std::span<const std::uint32_t> params, int most = 20) {
  std::vector<double> last;
  double updates = 0;
  for (int cycle = 0; cycle < most; ++cycle) {
    std::vector<double> got = shard.cycle(lambda, params);
    updates += got.back();
    got.pop_back();
    bool still = !last.empty();
    for (std::size_t j = 0; still && j < got.size(); ++j)
      still = std::abs(got[j] - last[j]) <= 1e-12 * std::max(1.0, std::abs(last[j]));
    last = std::move(got);
    if (still) break;
  }
  last.push_back(updates);
  return last;
}

}  // namespace gyre_test
