// tests/apps/lasso/logistic_solve_test.cpp — gyre-lasso's logistic loss on the rounds engine: optimal by KKT and against a plain solver, the λ path's start, the same bits on every backend.
#include <doctest/doctest.h>

#include <cmath>
#include <string>

#include "lasso/solver.hpp"
#include "lib/net/backends.hpp"
#include "logistic_checks.hpp"
#include "support/float_checks.hpp"

using namespace gyre;
using namespace gyre_test;
using gyre::test::relative_error;

namespace {

lasso::LassoConfig logistic_config() {
  lasso::LassoConfig c;
  c.loss = lasso::Loss::logistic;
  c.path_length = 3;
  c.lambda_ratio = 0.05;  // λ_max, 0.22·λ_max, 0.05·λ_max
  // The gap bounds the KKT violation only as √(2·L·gap) where F is strongly convex: a tight
  // tolerance makes the violation small against λ too.
  c.tol = 1e-12;
  c.threads = 2;
  return c;
}

// Every λ of the run: converged, KKT violation below 1e-6·λ from the data, F equal to the
// reference solver's optimum.
void check_optimal(const RegressionSet& set, const lasso::LassoConfig& c, const lasso::LassoRun& run) {
  REQUIRE(run.path.size() == static_cast<std::size_t>(c.path_length));
  for (const auto& s : run.path) {
    CAPTURE(s.lambda);
    CAPTURE(s.certificate.kkt_violation);
    CAPTURE(s.certificate.duality_gap);
    CHECK(s.converged);
    // The gap certifies F − F* ≤ tol·F, which bounds the KKT violation only by about
    // √(2·L·gap) (L ≤ 1/4 the curvature): ~1e-7 at tol 1e-12, below 1e-6·λ at these λ for the
    // Lasso; the elastic net's was measured at 0.9–1.5e-6·λ, so it is held to 1e-5·λ.
    const bool loose = c.alpha < 1;
    CHECK(logistic_kkt(set, c, s) < (loose ? 1e-5 : 1e-6) * s.lambda);
    const double mine = logistic_objective(set, c, s.lambda, s.beta, s.intercept);
    CHECK(relative_error(mine, s.certificate.objective) < 1e-9);
    CHECK(relative_error(mine, reference_objective(set, c, s.lambda)) < 1e-8);
  }
}

}  // namespace

TEST_CASE("at λ_max the logistic solution is zero with the intercept at logit(ȳ); below it, features enter") {
  const RegressionSet set = generated_classes(300, 24, 0.2, 11);
  lasso::LassoConfig c = logistic_config();
  const auto run = lasso::solve_embedded(set, c);
  double mean_y = 0;
  for (const double y : set.y) mean_y += y / static_cast<double>(set.samples());
  const auto& top = run.path.front();
  CHECK(top.lambda == run.lambda_max);
  CHECK(std::count_if(top.beta.begin(), top.beta.end(), [](double b) { return b != 0; }) == 0);
  CHECK(top.intercept == doctest::Approx(std::log(mean_y / (1 - mean_y))).epsilon(1e-12));
  CHECK(logistic_kkt(set, c, top) < 1e-9 * top.lambda);  // λ_max is exactly where β = 0 stops being optimal
  lasso::LassoConfig just_below = c;
  just_below.lambdas = {0.999 * run.lambda_max};
  const auto below = lasso::solve_embedded(set, just_below).path.front();
  CHECK(std::count_if(below.beta.begin(), below.beta.end(), [](double b) { return b != 0; }) >= 1);
}

TEST_CASE("logistic paths are optimal with and without an intercept, L1 and elastic net, standardised or not") {
  for (bool intercept : {true, false})
    for (double alpha : {1.0, 0.5})
      for (bool standardize : {false, true}) {
        CAPTURE(intercept);
        CAPTURE(alpha);
        CAPTURE(standardize);
        const RegressionSet set = generated_classes(400, 40, 0.15, 5);
        lasso::LassoConfig c = logistic_config();
        c.intercept = intercept;
        c.alpha = alpha;
        c.standardize = standardize;
        check_optimal(set, c, lasso::solve_embedded(set, c));
      }
}

TEST_CASE("columns whose means dwarf their spread (stepped centred, with the intercept) reach the optimum") {
  RegressionSet set = generated_classes(300, 12, 1.0, 13);
  for (std::uint64_t i = 0; i < set.samples(); ++i)
    for (std::uint64_t e = set.row_begin[i]; e < set.row_begin[i + 1]; ++e)
      if (set.cols[e] % 2 == 0) set.values[e] += 20.0 * (1 + set.cols[e] % 3);
  for (int depth : {1, 3}) {
    CAPTURE(depth);
    lasso::LassoConfig c = logistic_config();
    c.depth = depth;
    c.batch = 4;
    c.path_length = 5;
    c.lambda_ratio = 0.01;
    const auto run = lasso::solve_embedded(set, c);
    check_optimal(set, c, run);
    // Centring is what makes this fast: uncentred, the small λ take ~100× the updates.
    for (const auto& s : run.path) CHECK(s.updates < 20000);
  }
}

TEST_CASE_TEMPLATE("every schedule, depth and worker count reaches the logistic optimum", Backend, GYRE_TEST_BACKENDS) {
  const RegressionSet set = generated_classes(600, 60, 0.1, 3);
  for (auto schedule : {lasso::ScheduleKind::cyclic, lasso::ScheduleKind::random, lasso::ScheduleKind::priority})
    for (int depth : {1, 2, 4})
      for (int workers : {1, 3}) {
        const std::string backend = Backend::kName, schedule_text = lasso::schedule_name(schedule);
        CAPTURE(backend);
        CAPTURE(schedule_text);
        CAPTURE(depth);
        CAPTURE(workers);
        lasso::LassoConfig c = logistic_config();
        c.schedule = schedule;
        c.depth = depth;
        c.workers = workers;
        c.threads = 1;
        c.batch = 8;
        c.cycles = false;  // one worker too runs the scheduled rounds
        check_optimal(set, c, *lasso::solve(lasso::lasso_job(workers, Backend::runtime_backend()), set, c));
      }
}

TEST_CASE_TEMPLATE("one worker's logistic cycles reach the optimum with a message pair per check, the same bits on every backend",
                   Backend, GYRE_TEST_BACKENDS) {
  RegressionSet shifted = generated_classes(300, 12, 1.0, 13);  // with columns stepped centred
  for (std::uint64_t i = 0; i < shifted.samples(); ++i)
    for (std::uint64_t e = shifted.row_begin[i]; e < shifted.row_begin[i + 1]; ++e)
      if (shifted.cols[e] % 2 == 0) shifted.values[e] += 20.0;
  for (const RegressionSet& set : {generated_classes(500, 50, 0.12, 9), shifted})
    for (const bool intercept : {true, false}) {
      CAPTURE(intercept);
      lasso::LassoConfig c = logistic_config();
      c.intercept = intercept;
      const auto cycles = lasso::solve_embedded(set, c);
      check_optimal(set, c, cycles);
      const auto other = *lasso::solve(lasso::lasso_job(1, Backend::runtime_backend()), set, c);
      for (std::size_t k = 0; k < cycles.path.size(); ++k) {
        const auto& s = cycles.path[k];
        CHECK(s.rounds <= 3 * s.checks + 1);  // a cycle, its check, perhaps the gap's refinement
        CHECK(s.beta == other.path[k].beta);
        CHECK(s.intercept == other.path[k].intercept);
      }
    }
}

TEST_CASE_TEMPLATE("a fixed seed, P and T give the same logistic bits on every backend", Backend, GYRE_TEST_BACKENDS) {
  const RegressionSet set = generated_classes(500, 50, 0.12, 9);
  lasso::LassoConfig c = logistic_config();
  c.workers = 2;
  c.depth = 3;
  c.batch = 6;
  const auto inproc = lasso::solve_embedded(set, c);
  const auto other = *lasso::solve(lasso::lasso_job(2, Backend::runtime_backend()), set, c);
  for (std::size_t k = 0; k < inproc.path.size(); ++k) {
    CHECK(inproc.path[k].beta == other.path[k].beta);
    CHECK(inproc.path[k].intercept == other.path[k].intercept);
    CHECK(inproc.path[k].updates == other.path[k].updates);
  }
}

TEST_CASE("the logistic loss refuses labels other than 0/1, and one class with an intercept") {
  RegressionSet set = generated_classes(50, 5, 0.5, 2);
  lasso::LassoConfig c = logistic_config();
  set.y[7] = -1;
  CHECK_THROWS_WITH_AS(lasso::solve_embedded(set, c), doctest::Contains("sample 7"), std::invalid_argument);
  for (double& y : set.y) y = 1;
  CHECK_THROWS_WITH_AS(lasso::solve_embedded(set, c), doctest::Contains("both classes"), std::invalid_argument);
}
