// tests/apps/lasso/lasso_solve_test.cpp — Lasso solutions are optimal, recover a planted support, and agree across schedules, depths, workers and backends.
#include <doctest/doctest.h>

#include <cmath>
#include <set>
#include <string>

#include "gyre/data/planted_regression.hpp"
#include "gyre/net/group.hpp"
#include "gyre/rotation/rotation_driver.hpp"
#include "lasso/solver.hpp"
#include "lasso_checks.hpp"
#include "lib/net/backends.hpp"
#include "support/float_checks.hpp"

using namespace gyre;
using gyre::test::relative_error;
using gyre_test::planted_problem;

namespace {

lasso::LassoConfig config_for(double lambda) {
  lasso::LassoConfig c;
  c.lambdas = {lambda};
  c.tol = 1e-11;
  c.threads = 2;
  return c;
}

}  // namespace

TEST_CASE("on planted sparse data the solution meets the KKT conditions and recovers the support") {
  const auto p = planted_problem(3000, 400, 30, 0.5);
  // λ well under λ_max but far above the noise: the planted coefficients (|β| in [1, 2)) stay.
  auto c = config_for(0.0);
  c.path_length = 1;
  c.lambdas.clear();
  c.lambda_ratio = 0.05;
  const auto run = lasso::solve_embedded(p.set, c);
  REQUIRE(run.path.size() == 1);
  const auto& s = run.path[0];
  CHECK(s.converged);
  CHECK(s.lambda == doctest::Approx(0.05 * run.lambda_max).epsilon(1e-12));
  const double kkt = gyre_test::kkt_violation(p.set, c, s.lambda, s.beta, s.intercept);
  CHECK(kkt < 1e-6 * s.lambda);
  CHECK(s.certificate.kkt_violation < 1e-6 * s.lambda);

  std::set<std::size_t> truth, found;
  for (std::size_t j = 0; j < p.beta.size(); ++j) {
    if (p.beta[j] != 0) truth.insert(j);
    if (std::abs(s.beta[j]) > 0.1) found.insert(j);
    if (p.beta[j] != 0) CHECK_MESSAGE(s.beta[j] * p.beta[j] > 0, "feature " << j << " lost or flipped");
  }
  CHECK(found == truth);
}

TEST_CASE("λ_max is the smallest λ whose solution is zero, and every point of a warm-started path is optimal") {
  const auto p = planted_problem(1500, 200, 20, 0.5, 11);
  lasso::LassoConfig c = config_for(0);
  c.lambdas.clear();
  c.path_length = 8;
  c.lambda_ratio = 0.01;
  const auto run = lasso::solve_embedded(p.set, c);
  REQUIRE(run.path.size() == 8);
  CHECK(run.path[0].lambda == doctest::Approx(run.lambda_max));
  for (double b : run.path[0].beta) CHECK(b == 0);
  std::size_t last_nnz = 0;
  for (const auto& s : run.path) {
    CHECK(s.converged);
    CHECK(gyre_test::kkt_violation(p.set, c, s.lambda, s.beta, s.intercept) < 1e-6 * s.lambda);
    const auto nnz = static_cast<std::size_t>(std::count_if(s.beta.begin(), s.beta.end(), [](double b) { return b != 0; }));
    CHECK(nnz + 2 >= last_nnz);  // supports grow along the path (a variable may leave now and then)
    last_nnz = nnz;
  }
  CHECK(last_nnz >= 8);
  // Just under λ_max something enters.
  lasso::LassoConfig below = config_for(run.lambda_max * 0.999);
  const auto just = lasso::solve_embedded(p.set, below);
  CHECK(std::count_if(just.path[0].beta.begin(), just.path[0].beta.end(), [](double b) { return b != 0; }) >= 1);
}

TEST_CASE("elastic net with standardised columns and no intercept meets its KKT conditions") {
  const auto p = planted_problem(1200, 150, 15, 0.7, 3);
  for (bool intercept : {false, true}) {
    lasso::LassoConfig c = config_for(0.02);
    c.alpha = 0.6;
    c.standardize = true;
    c.intercept = intercept;
    const auto run = lasso::solve_embedded(p.set, c);
    const auto& s = run.path[0];
    CAPTURE(intercept);
    CHECK(s.converged);
    CHECK(gyre_test::kkt_violation(p.set, c, s.lambda, s.beta, s.intercept) < 1e-6 * s.lambda);
    if (!intercept) CHECK(s.intercept == 0);
    CHECK(lasso::objective(p.set, c, s.lambda, s.beta, s.intercept) ==
          doctest::Approx(s.certificate.objective).epsilon(1e-9));
  }
}

TEST_CASE_TEMPLATE("every schedule, depth and worker count reaches the same objective", Backend, GYRE_TEST_BACKENDS) {
  const auto p = planted_problem(2000, 300, 20, 0.6, 5);
  const double lambda = 0.02;
  lasso::LassoConfig ref_config = config_for(lambda);
  ref_config.schedule = lasso::ScheduleKind::cyclic;
  ref_config.depth = 1;
  ref_config.batch = 1;
  ref_config.workers = 1;
  ref_config.threads = 1;
  const auto ref = lasso::solve_embedded(p.set, ref_config).path[0];
  REQUIRE(ref.converged);
  const double reference = lasso::objective(p.set, ref_config, lambda, ref.beta, ref.intercept);

  for (auto schedule : {lasso::ScheduleKind::cyclic, lasso::ScheduleKind::random, lasso::ScheduleKind::priority})
    for (int depth : {1, 2, 4})
      for (int workers : {1, 3}) {
        lasso::LassoConfig c = config_for(lambda);
        c.schedule = schedule;
        c.depth = depth;
        c.workers = workers;
        c.threads = 1;
        c.batch = 16;
        c.cycles = false;  // one worker too runs the scheduled rounds
        const auto s = lasso::solve(lasso::lasso_job(workers, Backend::runtime_backend()), p.set, c)->path[0];
        const std::string backend = Backend::kName, schedule_text = lasso::schedule_name(schedule);
        CAPTURE(backend);
        CAPTURE(schedule_text);
        CAPTURE(depth);
        CAPTURE(workers);
        CHECK(s.converged);
        CHECK(relative_error(lasso::objective(p.set, c, lambda, s.beta, s.intercept), reference) < 1e-6);
      }
}

TEST_CASE_TEMPLATE("one worker's active-set cycles reach the rounds' optimum in a few messages, the same bits on every backend",
                   Backend, GYRE_TEST_BACKENDS) {
  const auto p = planted_problem(2000, 300, 20, 0.6, 5);
  for (const double alpha : {1.0, 0.7}) {
    CAPTURE(alpha);
    lasso::LassoConfig c = config_for(0.02);
    c.alpha = alpha;
    c.path_length = 4;
    c.lambdas.clear();
    c.lambda_ratio = 0.05;
    lasso::LassoConfig rounds = c;
    rounds.cycles = false;
    const auto by_rounds = lasso::solve_embedded(p.set, rounds);
    const auto by_cycles = lasso::solve_embedded(p.set, c);
    const auto other = *lasso::solve(lasso::lasso_job(1, Backend::runtime_backend()), p.set, c);
    REQUIRE(by_cycles.path.size() == by_rounds.path.size());
    for (std::size_t k = 0; k < by_cycles.path.size(); ++k) {
      const auto& s = by_cycles.path[k];
      CAPTURE(s.lambda);
      CHECK(s.converged);
      CHECK(gyre_test::kkt_violation(p.set, c, s.lambda, s.beta, s.intercept) < 1e-6 * s.lambda);
      const auto& r = by_rounds.path[k];
      CHECK(relative_error(lasso::objective(p.set, c, s.lambda, s.beta, s.intercept),
                           lasso::objective(p.set, c, r.lambda, r.beta, r.intercept)) < 1e-9);
      // A cycle and the check after it are the only messages: none per coordinate.
      CHECK(s.rounds <= 2 * s.checks + 1);
      if (k > 0) CHECK(s.updates > s.rounds);  // (at λ_max nothing moves)
      CHECK(s.beta == other.path[k].beta);
      CHECK(s.intercept == other.path[k].intercept);
    }
  }
}

TEST_CASE_TEMPLATE("a fixed seed, P and T give the same bits on every backend", Backend, GYRE_TEST_BACKENDS) {
  const auto p = planted_problem(1000, 120, 12, 0.5, 9);
  lasso::LassoConfig c = config_for(0.03);
  c.workers = 2;
  c.depth = 3;
  c.batch = 8;
  const auto inproc = lasso::solve_embedded(p.set, c).path[0];
  const auto other = lasso::solve(lasso::lasso_job(2, Backend::runtime_backend()), p.set, c)->path[0];
  CHECK(inproc.beta == other.beta);
  CHECK(inproc.intercept == other.intercept);
  CHECK(inproc.updates == other.updates);
}

TEST_CASE_TEMPLATE("a worker whose links die stops the job with an error naming it", Backend, GYRE_TEST_BACKENDS) {
  const auto p = planted_problem(800, 100, 10, 0.5, 4);
  lasso::LassoConfig c = config_for(0.01);
  c.workers = 2;
  c.threads = 1;
  const std::string what = gyre_test::failure_with_worker_1_cut(
      lasso::lasso_job(2, Backend::runtime_backend()), [&](const runtime::Job& job, std::chrono::milliseconds timeout) {
        lasso::SolveOptions o;
        o.timeout = timeout;
        lasso::solve(job, p.set, c, o);
      });
  CAPTURE(what);
  CHECK((what.find("worker 1") != std::string::npos || what.find("rank 1") != std::string::npos));
}
