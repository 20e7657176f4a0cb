// tests/apps/lasso/lasso_models_test.cpp — Lasso under Harp's allreduce (C) and no-sync (D) models: the rounds' optimum, serial coordinate descent with one worker, C's bits on every backend.
#include <doctest/doctest.h>

#include <cmath>
#include <string>

#include "gyre/checkpoint/store.hpp"
#include "gyre/data/planted_regression.hpp"
#include "lasso/column_models.hpp"
#include "lasso/penalty.hpp"
#include "lasso/solver.hpp"
#include "lasso_checks.hpp"
#include "lib/net/backends.hpp"
#include "support/float_checks.hpp"

using namespace gyre;
using gyre::test::relative_error;
using gyre_test::planted_problem;

namespace {

lasso::LassoConfig path_config(lasso::ComputationModel model, int workers) {
  lasso::LassoConfig c;
  c.path_length = 4;
  c.lambda_ratio = 0.05;
  c.tol = 1e-10;
  c.workers = workers;
  c.threads = 1;
  c.model = model;
  return c;
}

// Plain cyclic coordinate descent on the centred columns (a dense copy), from β = 0 at one λ:
// what one column worker does, written out apart from the solver.
std::vector<double> serial_descent(const data::RegressionSet& set, double lambda, int sweeps) {
  const std::size_t n = set.samples(), m = set.features;
  std::vector<double> x(n * m, 0.0), mean(m, 0.0);
  double y_mean = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const auto cols = set.row_cols(i);
    const auto vals = set.row_values(i);
    for (std::size_t e = 0; e < cols.size(); ++e) x[i * m + cols[e]] = vals[e];
    y_mean += set.y[i] / static_cast<double>(n);
  }
  for (std::size_t j = 0; j < m; ++j) {
    for (std::size_t i = 0; i < n; ++i) mean[j] += x[i * m + j] / static_cast<double>(n);
    for (std::size_t i = 0; i < n; ++i) x[i * m + j] -= mean[j];
  }
  std::vector<double> r(n), beta(m, 0.0);
  for (std::size_t i = 0; i < n; ++i) r[i] = set.y[i] - y_mean;
  const lasso::Penalty p{lambda, 1.0};
  for (int s = 0; s < sweeps; ++s)
    for (std::size_t j = 0; j < m; ++j) {
      double g = 0, curvature = 0;
      for (std::size_t i = 0; i < n; ++i) {
        g += x[i * m + j] * r[i];
        curvature += x[i * m + j] * x[i * m + j];
      }
      if (curvature == 0) continue;
      const double next = lasso::coordinate_minimiser(beta[j], g / static_cast<double>(n),
                                                      curvature / static_cast<double>(n), p);
      for (std::size_t i = 0; i < n; ++i) r[i] -= x[i * m + j] * (next - beta[j]);
      beta[j] = next;
    }
  return beta;
}

}  // namespace

TEST_CASE("the allreduce and no-sync models reach the rounds' optimum on every λ of a path, with any worker count") {
  // Correlated groups (0.9) spread over every owner: Shotgun's plain sum of the workers' steps
  // would overshoot there; CoCoA+'s σ′ = P keeps C's rounds from raising F, and D lives with
  // stale residuals.
  for (const double correlation : {0.3, 0.9}) {
    const auto p = planted_problem(1500, 200, 30, correlation, 5);
    auto reference_config = path_config(lasso::ComputationModel::kRounds, 1);
    const auto reference = lasso::solve_embedded(p.set, reference_config);
    for (const auto model : {lasso::ComputationModel::kAllreduce, lasso::ComputationModel::kNoSync})
      for (const int workers : {1, 2, 4}) {
        CAPTURE(correlation);
        CAPTURE(lasso::name_of(model));
        CAPTURE(workers);
        const auto c = path_config(model, workers);
        const auto run = lasso::solve_embedded(p.set, c);
        CHECK(run.lambda_max == doctest::Approx(reference.lambda_max).epsilon(1e-12));
        REQUIRE(run.path.size() == reference.path.size());
        for (std::size_t k = 0; k < run.path.size(); ++k) {
          const auto& s = run.path[k];
          const auto& r = reference.path[k];
          CAPTURE(s.lambda);
          CHECK(s.converged);
          CHECK(s.lambda == r.lambda);
          CHECK(gyre_test::kkt_violation(p.set, c, s.lambda, s.beta, s.intercept) < 1e-4 * s.lambda);
          CHECK(relative_error(lasso::objective(p.set, c, s.lambda, s.beta, s.intercept),
                               lasso::objective(p.set, c, r.lambda, r.beta, r.intercept)) < 1e-8);
          // The gap the workers joined is the one the rounds' scheduler would certify.
          CHECK(s.certificate.objective == doctest::Approx(lasso::objective(p.set, c, s.lambda, s.beta, s.intercept)).epsilon(1e-9));
        }
      }
  }
}

TEST_CASE("elastic net, standardised columns and no intercept under the column models meet their KKT conditions") {
  const auto p = planted_problem(1200, 150, 25, 0.5, 8);
  for (const auto model : {lasso::ComputationModel::kAllreduce, lasso::ComputationModel::kNoSync}) {
    CAPTURE(lasso::name_of(model));
    auto c = path_config(model, 3);
    c.alpha = 0.6;
    c.standardize = true;
    c.intercept = false;
    const auto run = lasso::solve_embedded(p.set, c);
    for (const auto& s : run.path) {
      CAPTURE(s.lambda);
      CHECK(s.converged);
      CHECK(s.intercept == 0);
      CHECK(gyre_test::kkt_violation(p.set, c, s.lambda, s.beta, s.intercept) < 1e-4 * s.lambda);
    }
  }
}

TEST_CASE("with one worker both models are plain cyclic coordinate descent: the serial sweeps' coefficients") {
  const auto p = planted_problem(400, 60, 12, 0.5, 3);
  const double lambda = 0.02;
  for (const auto model : {lasso::ComputationModel::kAllreduce, lasso::ComputationModel::kNoSync}) {
    CAPTURE(lasso::name_of(model));
    auto c = path_config(model, 1);
    c.lambdas = {lambda};
    c.max_updates = 3 * 60;  // three sweeps, one check after them (check_every: every sweep)
    c.check_every = 60;
    const auto s = lasso::solve_embedded(p.set, c).path[0];
    const auto serial = serial_descent(p.set, lambda, 3);
    for (std::size_t j = 0; j < serial.size(); ++j) {
      CAPTURE(j);
      CHECK(s.beta[j] == doctest::Approx(serial[j]).epsilon(1e-9).scale(1e-12));
    }
    CHECK(s.updates == 3 * 60);
    CHECK(s.rounds == 3);
  }
}

TEST_CASE_TEMPLATE("the allreduce model gives the same bits on every backend and every run", Backend, GYRE_TEST_BACKENDS) {
  const auto p = planted_problem(800, 90, 15, 0.9, 4);
  const auto c = path_config(lasso::ComputationModel::kAllreduce, 3);
  const auto one = lasso::solve_embedded(p.set, c);
  const auto other = *lasso::solve_by_columns(lasso::column_job(3, Backend::runtime_backend()), p.set, c);
  REQUIRE(one.path.size() == other.path.size());
  for (std::size_t k = 0; k < one.path.size(); ++k) {
    CHECK(one.path[k].beta == other.path[k].beta);
    CHECK(one.path[k].intercept == other.path[k].intercept);
    CHECK(one.path[k].updates == other.path[k].updates);
  }
}

TEST_CASE_TEMPLATE("a column worker whose links die stops the job with an error naming it", Backend, GYRE_TEST_BACKENDS) {
  const auto p = planted_problem(800, 100, 10, 0.5, 4);
  for (const auto model : {lasso::ComputationModel::kAllreduce, lasso::ComputationModel::kNoSync}) {
    CAPTURE(lasso::name_of(model));
    auto c = path_config(model, 2);
    c.lambdas = {0.001};
    c.tol = 1e-14;
    const std::string what = gyre_test::failure_with_worker_1_cut(
        lasso::column_job(2, Backend::runtime_backend()), [&](const runtime::Job& job, std::chrono::milliseconds timeout) {
          lasso::SolveOptions o;
          o.timeout = timeout;
          lasso::solve_by_columns(job, p.set, c, o);
        });
    CAPTURE(what);
    CHECK((what.find("worker 1") != std::string::npos || what.find("rank 1") != std::string::npos));
  }
}

TEST_CASE("the column models refuse the logistic loss, checkpoints and a job with a scheduler") {
  const auto p = planted_problem(200, 20, 5, 0.5, 2);
  auto c = path_config(lasso::ComputationModel::kAllreduce, 2);
  c.loss = lasso::Loss::logistic;
  CHECK_THROWS_WITH_AS(c.validate(), doctest::Contains("squared loss only"), std::invalid_argument);
  c.loss = lasso::Loss::squared;
  lasso::SolveOptions o;
  // (Refused before anything is written: the store's folder is never made.)
  o.checkpoints.target.store =
      std::make_shared<const checkpoint::Store>(std::filesystem::temp_directory_path() / "gyre-never-made", 1);
  CHECK_THROWS_WITH_AS(lasso::solve_embedded(p.set, c, o), doctest::Contains("--model rounds only"), std::invalid_argument);
  CHECK_THROWS_AS(lasso::solve_by_columns(lasso::lasso_job(2, runtime::ThreadsBackend{}), p.set, c), std::invalid_argument);
  CHECK_THROWS_WITH_AS(lasso::parse_computation_model("B"), doctest::Contains("expected rounds, C|allreduce or D|nosync"),
                       std::invalid_argument);
  CHECK(lasso::parse_computation_model("D") == lasso::ComputationModel::kNoSync);
  CHECK(lasso::parse_computation_model("allreduce") == lasso::ComputationModel::kAllreduce);
}
