// tests/apps/lasso/lasso_real_data_test.cpp — on real data (the diabetes study that ships with scikit-learn) the solutions are optimal and match a plain solver.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>

#include "lasso/solver.hpp"
#include "lasso_checks.hpp"
#include "logistic_checks.hpp"
#include "support/real_data.hpp"

using namespace gyre;

namespace {

// Written by tools/data/fetch-regression.sh (the README's test command runs it) from the
// python3-sklearn package; the location follows that script's default.
std::filesystem::path dataset(const std::string& name) {
  return test::real_data_path(std::filesystem::path("regression") / name / "data.csv");
}

// Textbook cyclic coordinate descent on dense centred columns, run to a tiny step: the
// reference the scheduled solver must agree with.
std::vector<double> plain_lasso(const data::RegressionSet& set, double lambda, double& intercept) {
  const std::size_t n = set.samples(), m = set.features;
  std::vector<double> x(m * n, 0.0);  // column j at [j·n, (j+1)·n)
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t e = set.row_begin[i]; e < set.row_begin[i + 1]; ++e) x[set.cols[e] * n + i] = set.values[e];
  double ybar = 0;
  for (double v : set.y) ybar += v / static_cast<double>(n);
  std::vector<double> mean(m, 0.0), norm(m, 0.0), beta(m, 0.0), r(n);
  for (std::size_t j = 0; j < m; ++j) {
    double* col = x.data() + j * n;
    for (std::size_t i = 0; i < n; ++i) mean[j] += col[i] / static_cast<double>(n);
    for (std::size_t i = 0; i < n; ++i) col[i] -= mean[j];
    for (std::size_t i = 0; i < n; ++i) norm[j] += col[i] * col[i] / static_cast<double>(n);
  }
  for (std::size_t i = 0; i < n; ++i) r[i] = set.y[i] - ybar;
  for (int sweep = 0; sweep < 100000; ++sweep) {
    double biggest = 0;
    for (std::size_t j = 0; j < m; ++j) {
      if (norm[j] == 0) continue;
      const double* col = x.data() + j * n;
      double g = 0;
      for (std::size_t i = 0; i < n; ++i) g += col[i] * r[i];
      const double u = g / static_cast<double>(n) + norm[j] * beta[j];
      const double next = (u > lambda ? u - lambda : u < -lambda ? u + lambda : 0.0) / norm[j];
      const double d = next - beta[j];
      if (d != 0)
        for (std::size_t i = 0; i < n; ++i) r[i] -= col[i] * d;
      beta[j] = next;
      biggest = std::max(biggest, std::abs(d));
    }
    if (biggest < 1e-13) break;
  }
  intercept = ybar;
  for (std::size_t j = 0; j < m; ++j) intercept -= mean[j] * beta[j];
  return beta;
}

}  // namespace

TEST_CASE("on the diabetes data every λ of a path meets the KKT conditions and matches plain coordinate descent") {
  const auto file = dataset("diabetes");
  REQUIRE_MESSAGE(std::filesystem::exists(file), "missing " << file << ": run tools/data/fetch-regression.sh diabetes");
  const data::RegressionSet set = data::load_regression(file);
  REQUIRE(set.samples() == 442);
  REQUIRE(set.features == 10);

  for (auto schedule : {lasso::ScheduleKind::cyclic, lasso::ScheduleKind::priority}) {
    lasso::LassoConfig c;
    c.path_length = 12;
    c.lambda_ratio = 1e-3;
    c.tol = 1e-12;
    c.schedule = schedule;
    c.workers = 2;
    c.threads = 1;
    const auto run = lasso::solve_embedded(set, c);
    REQUIRE(run.path.size() == 12);
    for (const auto& s : run.path) {
      CAPTURE(s.lambda);
      CHECK(s.converged);
      CHECK(gyre_test::kkt_violation(set, c, s.lambda, s.beta, s.intercept) < 1e-7 * s.lambda);
      double intercept = 0;
      const auto plain = plain_lasso(set, s.lambda, intercept);
      const double mine = lasso::objective(set, c, s.lambda, s.beta, s.intercept);
      const double theirs = lasso::objective(set, c, s.lambda, plain, intercept);
      CHECK(std::abs(mine - theirs) <= 1e-9 * theirs);
    }
  }
}

TEST_CASE("on the diabetes data standardised elastic net meets its KKT conditions") {
  const auto file = dataset("diabetes");
  REQUIRE_MESSAGE(std::filesystem::exists(file), "missing " << file << ": run tools/data/fetch-regression.sh diabetes");
  const data::RegressionSet set = data::load_regression(file);
  lasso::LassoConfig c;
  c.path_length = 6;
  c.alpha = 0.5;
  c.standardize = true;
  c.tol = 1e-12;
  const auto run = lasso::solve_embedded(set, c);
  for (const auto& s : run.path) CHECK(gyre_test::kkt_violation(set, c, s.lambda, s.beta, s.intercept) < 1e-7 * s.lambda);
}

TEST_CASE("on the diabetes data binarised at the median, a logistic path meets its KKT conditions and the plain optimum") {
  const auto file = dataset("diabetes");
  REQUIRE_MESSAGE(std::filesystem::exists(file), "missing " << file << ": run tools/data/fetch-regression.sh diabetes");
  data::RegressionSet set = data::load_regression(file);
  std::vector<double> sorted = set.y;
  std::nth_element(sorted.begin(), sorted.begin() + sorted.size() / 2, sorted.end());
  const double median = sorted[sorted.size() / 2];
  for (double& y : set.y) y = y > median ? 1.0 : 0.0;
  // The raw columns (ages, blood serum levels in the hundreds) are nearly collinear with the
  // intercept: they step centred (logistic_loss_model.cpp), else the path's small λ crawl.
  for (const int workers : {1, 2})  // a worker's own cycles, and rounds over two shards
  for (const bool standardize : {false, true}) {
    CAPTURE(workers);
    CAPTURE(standardize);
    lasso::LassoConfig c;
    c.loss = lasso::Loss::logistic;
    c.path_length = 8;
    c.lambda_ratio = 1e-2;
    c.tol = 1e-11;
    c.standardize = standardize;
    c.workers = workers;
    c.threads = 1;
    const auto run = lasso::solve_embedded(set, c);
    REQUIRE(run.path.size() == 8);
    for (const auto& s : run.path) {
      CAPTURE(s.lambda);
      CHECK(s.converged);
      CHECK(gyre_test::logistic_kkt(set, c, s) < 1e-6 * s.lambda);
      const double mine = gyre_test::logistic_objective(set, c, s.lambda, s.beta, s.intercept);
      CHECK(std::abs(mine - gyre_test::reference_objective(set, c, s.lambda)) <= 1e-8 * mine);
    }
  }
}
