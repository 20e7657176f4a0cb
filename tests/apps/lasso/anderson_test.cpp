// tests/apps/lasso/anderson_test.cpp — Anderson extrapolation: a linear fixed-point iteration's limit from depth + 1 iterates, and nothing from a degenerate history.
#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "lasso/anderson.hpp"

using gyre::lasso::AndersonExtrapolation;

namespace {

// x ↦ Ax + b with a contraction A (spectral radius 0.95): its iterates crawl to x* = (I − A)⁻¹b,
// and with one difference more than it has dimensions (the differences are then dependent) the
// extrapolation lands on x* itself.
std::vector<double> step(const std::vector<double>& x) {
  const double A[4][4] = {{0.90, 0.05, 0.00, 0.00}, {0.02, 0.80, 0.10, 0.00}, {0.00, 0.05, 0.60, 0.30}, {0.01, 0.00, 0.00, 0.95}};
  const double b[4] = {1, -2, 0.5, 3};
  std::vector<double> y(4);
  for (int i = 0; i < 4; ++i) {
    y[i] = b[i];
    for (int j = 0; j < 4; ++j) y[i] += A[i][j] * x[j];
  }
  return y;
}

}  // namespace

TEST_CASE("Anderson extrapolation of a linear iteration lands on its fixed point") {
  std::vector<double> x{0, 0, 0, 0}, limit = x;
  for (int k = 0; k < 5000; ++k) limit = step(limit);
  AndersonExtrapolation anderson(5);
  std::vector<double> xs = x;
  for (int k = 0; k < 5; ++k) {
    CHECK_FALSE(anderson.record(xs).has_value());
    xs = step(xs);
  }
  const auto got = anderson.record(xs);
  REQUIRE(got.has_value());
  double far = 0, near = 0;
  for (int i = 0; i < 4; ++i) {
    far = std::max(far, std::abs(xs[static_cast<std::size_t>(i)] - limit[static_cast<std::size_t>(i)]));
    near = std::max(near, std::abs((*got)[static_cast<std::size_t>(i)] - limit[static_cast<std::size_t>(i)]));
  }
  CHECK(far > 1);       // the plain iterates are nowhere near after five steps
  CHECK(near < 1e-6);   // the extrapolation is there
  // A new history starts from the last iterate: five more records before the next point.
  for (int k = 0; k < 4; ++k) {
    xs = step(xs);
    CHECK_FALSE(anderson.record(xs).has_value());
  }
  xs = step(xs);
  CHECK(anderson.record(xs).has_value());
}

TEST_CASE("Anderson extrapolation gives nothing for iterates that do not move, and restart forgets") {
  AndersonExtrapolation anderson(3);
  const std::vector<double> still{1, 2};
  for (int k = 0; k < 3; ++k) CHECK_FALSE(anderson.record(still).has_value());
  CHECK_FALSE(anderson.record(still).has_value());  // U = 0: no direction to extrapolate along
  std::vector<double> xs{0, 0};
  anderson.restart();
  for (int k = 0; k < 3; ++k) {
    CHECK_FALSE(anderson.record(xs).has_value());
    xs = {xs[0] + 1, xs[1] * 0.5 + 1};
  }
  CHECK(anderson.record(xs).has_value());
}
