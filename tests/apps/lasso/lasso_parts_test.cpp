// tests/apps/lasso/lasso_parts_test.cpp — the Lasso pieces alone: the coordinate step and the duality gap.
// (The sampler, the dependency check and the round messages are the rounds engine's: tests/lib/rounds/rounds_parts_test.cpp.)
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>

#include "lasso/column_stats.hpp"
#include "lasso/penalty.hpp"

using namespace gyre;
using namespace gyre::lasso;

TEST_CASE("the coordinate step is the exact one-dimensional minimiser, and the gap certifies it") {
  // f(γ) = c/2·γ² − (g + cγ0)·γ + λ(α|γ| + (1−α)/2 γ²) around γ0: compare with a fine grid.
  for (double alpha : {1.0, 0.5})
    for (double g : {-2.0, -0.3, 0.05, 0.7, 3.0}) {
      const Penalty p{0.4, alpha};
      const double c = 1.7, g0 = 0.2;
      const double u = g + c * g0;
      auto f = [&](double x) { return 0.5 * c * x * x - u * x + p.value(x); };
      const double best = coordinate_minimiser(g0, g, c, p);
      for (double x = -3; x <= 3; x += 1e-3) CHECK(f(best) <= f(x) + 1e-12);
      CHECK(kkt_violation(best, u - c * best, p) == doctest::Approx(0).scale(1));
    }
  CHECK(soft_threshold(2, 0.5) == 1.5);
  CHECK(soft_threshold(-2, 0.5) == -1.5);
  CHECK(soft_threshold(0.3, 0.5) == 0);
}

TEST_CASE("the duality gap bounds F − F* and vanishes at the optimum (one feature, closed form)") {
  // x = (1, −1, 2, 0), y = (1, 0, 3, 1), no intercept: F(γ) = ‖y − xγ‖²/8 + λ|γ|.
  const std::vector<double> x{1, -1, 2, 0}, y{1, 0, 3, 1};
  const double n = 4, lambda = 0.3;
  const Penalty p{lambda, 1};
  auto state = [&](double gamma) {
    double rss = 0, dot_y = 0, g = 0;
    for (int i = 0; i < 4; ++i) {
      const double r = y[i] - x[i] * gamma;
      rss += r * r / n;
      dot_y += r * y[i] / n;
      g += x[i] * r / n;
    }
    return certify(std::vector<double>{gamma}, std::vector<double>{g}, rss, dot_y, p);
  };
  const double xx = 6 / n, xy = 7 / n;
  const double optimum = soft_threshold(xy, lambda) / xx;
  const auto at_opt = state(optimum);
  CHECK(at_opt.duality_gap == doctest::Approx(0).scale(1e-3));
  CHECK(at_opt.kkt_violation == doctest::Approx(0).scale(1));
  for (double gamma : {0.0, 0.5, optimum + 0.2, 2.0}) {
    const auto c = state(gamma);
    CHECK(c.duality_gap >= c.objective - at_opt.objective - 1e-12);
  }
}
