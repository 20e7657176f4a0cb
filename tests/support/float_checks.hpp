// tests/support/float_checks.hpp — comparing floating-point results: bit for bit, or by their relative difference.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

namespace gyre::test {

// Whether two vectors hold the same values bit for bit (so also -0 against 0, or NaNs, differ).
// T defaults to double for braced lists of values, e.g. same_bits({a, b}, {c, d}).
template <class T = double>
bool same_bits(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0;
}

// |a − b| relative to |b|.
inline double relative_error(double a, double b) { return std::abs(a - b) / std::max(std::abs(b), 1e-300); }

}  // namespace gyre::test
