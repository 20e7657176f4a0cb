// tests/apps/lasso/logistic_test.cpp — sparse logistic regression's math against a plain reference solver: stable terms, the safeguarded step, the duality gap.
#include <doctest/doctest.h>

#include <cmath>
#include <random>
#include <string>

#include "lasso/logistic.hpp"
#include "logistic_reference.hpp"

using namespace gyre;
using namespace gyre::lasso;
using namespace gyre_test;

namespace {

struct Setup {
  std::string name;
  RegressionSet set;
  ColumnStats stats;
  bool intercept;
  Penalty penalty;
};

// λ = 0.3·λ_max, where λ_max = max_j |x̃_jᵀ(y − ȳ)|/(nα) (ȳ = 1/2 without an intercept).
Setup make_setup(std::string name, RegressionSet set, bool intercept, double alpha, bool standardize) {
  Setup s{std::move(name), std::move(set), {}, intercept, {}};
  s.stats = compute_column_stats(s.set, intercept, standardize);
  const double n = static_cast<double>(s.set.samples());
  double centre = 0.5;
  if (intercept) {
    centre = 0;
    for (const double y : s.set.y) centre += y / n;
  }
  const auto start = direct_check(s.set, std::vector<double>(s.set.samples(), std::log(centre / (1 - centre))));
  double widest = 0;
  for (std::uint32_t j = 0; j < s.set.features; ++j)
    if (s.stats.usable[j]) widest = std::max(widest, std::abs(start.sums[2 * j]) / (n * s.stats.scale[j]));
  s.penalty = {0.3 * widest / alpha, alpha};
  return s;
}

std::vector<Setup> setups() {
  std::vector<Setup> out;
  for (bool intercept : {true, false})
    for (double alpha : {1.0, 0.5}) {
      const std::string tail = std::string(intercept ? ", intercept" : ", no intercept") + ", α " + std::to_string(alpha);
      out.push_back(make_setup("sparse" + tail, generated_classes(200, 30, 0.15, 7), intercept, alpha, false));
      out.push_back(make_setup("dense standardised" + tail, generated_classes(120, 6, 1.0, 8), intercept, alpha, true));
    }
  return out;
}

Certificate certificate_at(const Setup& s, const std::vector<double>& gamma, double b, bool exact) {
  const auto m = margins_of(s.set, s.stats, gamma, b);
  const LogisticShardCheck c = direct_check(s.set, m);
  std::optional<double> dual;
  if (exact) dual = direct_dual_sum(s.set, m, logistic_dual_point(c, s.stats, s.intercept, s.penalty));
  return certify_logistic(gamma, c, s.stats, s.intercept, s.penalty, dual);
}

}  // namespace

TEST_CASE("the stable logistic terms match the plain formulas and stay finite when saturated") {
  for (double m : {-30.0, -2.5, -1e-3, 0.0, 0.7, 4.0, 30.0}) {
    CHECK(sigmoid(m) == doctest::Approx(1 / (1 + std::exp(-m))).epsilon(1e-14));
    CHECK(softplus(m) == doctest::Approx(std::log(1 + std::exp(m))).epsilon(1e-14));
    CHECK(logistic_loss(m, 1) == doctest::Approx(std::log(1 + std::exp(m)) - m).epsilon(1e-12));
    CHECK(logistic_loss(m, 0) == doctest::Approx(std::log(1 + std::exp(m))).epsilon(1e-12));
  }
  for (double m : {-800.0, 800.0}) {
    CHECK(std::isfinite(softplus(m)));
    CHECK(std::isfinite(logistic_loss(m, 0)));
    CHECK(std::isfinite(logistic_loss(m, 1)));
    CHECK(negative_entropy(sigmoid(m), sigmoid(-m)) == 0);
  }
  CHECK(logistic_loss(800, 0) == 800);
  CHECK(negative_entropy(0.5, 0.5) == doctest::Approx(-std::log(2.0)));
}

TEST_CASE("sigmoids(m): the bits of sigmoid(m) and sigmoid(-m), saturated and at both zeros") {
  for (double m : {-800.0, -745.2, -30.0, -2.5, -1e-300, -0.0, 0.0, 1e-300, 1e-3, 0.7, 36.9, 745.2, 800.0}) {
    CAPTURE(m);
    const Sigmoids s = sigmoids(m);
    CHECK(s.p == sigmoid(m));
    CHECK(s.not_p == sigmoid(-m));
  }
}

TEST_CASE("the reference solver meets the KKT conditions, and the certificate closes the gap at its optimum") {
  for (const Setup& s : setups()) {
    INFO(s.name);
    const ReferenceSolution best = reference_solve(s.set, s.stats, s.intercept, s.penalty);
    REQUIRE(best.kkt < 1e-12);
    std::size_t nnz = 0;
    for (const double g : best.gamma) nnz += g != 0;
    CHECK(nnz > 0);  // λ is below λ_max
    for (bool exact : {false, true}) {
      const Certificate c = certificate_at(s, best.gamma, best.intercept, exact);
      CHECK(c.objective == doctest::Approx(best.objective).epsilon(1e-14));
      CHECK(c.kkt_violation < 1e-12);
      CHECK(std::abs(c.duality_gap) < 1e-10);
    }
  }
}

TEST_CASE("the duality gap is non-negative and bounds F − F* at arbitrary points, exact or bounded") {
  std::mt19937_64 rng(5);
  std::normal_distribution<double> normal;
  for (const Setup& s : setups()) {
    INFO(s.name);
    const ReferenceSolution best = reference_solve(s.set, s.stats, s.intercept, s.penalty);
    for (int trial = 0; trial < 20; ++trial) {
      // Near the optimum, far from it, and at the optimum's features with a wrong intercept.
      if (trial >= 16 && !s.intercept) break;
      const double spread = trial < 8 ? 0.05 : (trial < 16 ? 1.0 : 0.0);
      std::vector<double> gamma = best.gamma;
      for (double& g : gamma) g += spread * normal(rng);
      const double b = s.intercept ? best.intercept + (trial < 16 ? spread : 0.5) * normal(rng) : 0.0;
      const Certificate bound = certificate_at(s, gamma, b, false), exact = certificate_at(s, gamma, b, true);
      INFO("trial " << trial);
      CHECK(exact.duality_gap >= 0);
      CHECK(exact.duality_gap >= exact.objective - best.objective - 1e-12);
      CHECK(bound.duality_gap >= exact.duality_gap - 1e-12);
      CHECK(exact.objective == bound.objective);
    }
  }
}

TEST_CASE("the refinement's slack is 0 where no scale of its grid is feasible (α = 1 at the start, λ = 0.3·λ_max)") {
  for (const Setup& s : setups()) {
    if (s.penalty.alpha != 1) continue;
    INFO(s.name);
    // The start of the path: β = 0, the intercept at logit(ȳ) (or 0 without one).
    double centre = 0.5;
    if (s.intercept) {
      centre = 0;
      for (const double y : s.set.y) centre += y / static_cast<double>(s.set.samples());
    }
    const std::vector<double> zero(s.set.features, 0.0);
    const auto m = margins_of(s.set, s.stats, zero, std::log(centre / (1 - centre)));
    const LogisticShardCheck total = direct_check(s.set, m);
    CHECK(logistic_bound_slack(total, s.stats, s.intercept, s.penalty) == 0);
    // Why: the exact entropies at every scale of the grid would not lower the gap there.
    const Certificate bounded = certify_logistic(zero, total, s.stats, s.intercept, s.penalty);
    std::vector<double> sums;
    for (const double scale : refinement_scales()) {
      LogisticDualPoint point = logistic_dual_point(total, s.stats, s.intercept, s.penalty);
      point.scale = scale;
      sums.push_back(direct_dual_sum(s.set, m, point));
    }
    CHECK(refine_logistic(bounded, total, s.stats, s.intercept, s.penalty, sums).duality_gap == bounded.duality_gap);
    // At 0.6·λ_max the grid's 1/2 is feasible and the slack is (1 − s)·A with s = 0.6.
    const Penalty looser{2 * s.penalty.lambda, 1};
    CHECK(logistic_bound_slack(total, s.stats, s.intercept, looser) > 0);
  }
}

TEST_CASE("each coordinate step decreases F from random points, saturated ones included, and is Newton's near the optimum") {
  std::mt19937_64 rng(9);
  std::normal_distribution<double> normal;
  for (const Setup& s : setups()) {
    INFO(s.name);
    const auto bounds = step_bounds(s.stats);
    const std::uint32_t p = s.set.features;
    const std::uint64_t n = s.set.samples();
    for (double spread : {0.3, 3.0, 40.0}) {
      std::vector<double> gamma(p);
      for (double& g : gamma) g = spread * normal(rng);
      const double b = s.intercept ? spread * normal(rng) : 0.0;
      const double before = objective(s.set, s.stats, s.penalty, gamma, b);
      const LogisticShardCheck c = direct_check(s.set, margins_of(s.set, s.stats, gamma, b));
      for (std::uint32_t j = 0; j < p; ++j) {
        if (!s.stats.usable[j]) continue;
        std::vector<double> moved = gamma;
        moved[j] = logistic_step(gamma[j], c.sums[2 * j], c.sums[2 * j + 1], s.stats.scale[j], n, bounds[j], s.penalty);
        REQUIRE(std::isfinite(moved[j]));
        CHECK(objective(s.set, s.stats, s.penalty, moved, b) <= before + 1e-14 * std::abs(before));
      }
      if (s.intercept) {
        const double moved = intercept_step(b, c.sums[2 * p], c.sums[2 * p + 1], n);
        REQUIRE(std::isfinite(moved));
        CHECK(objective(s.set, s.stats, s.penalty, gamma, moved) <= before + 1e-14 * std::abs(before));
      }
    }
    // A small displacement from the optimum: the safeguard lets the plain Newton step through.
    const ReferenceSolution best = reference_solve(s.set, s.stats, s.intercept, s.penalty);
    for (std::uint32_t j = 0; j < p; ++j) {
      if (best.gamma[j] == 0) continue;
      std::vector<double> gamma = best.gamma;
      gamma[j] += 1e-3;
      const LogisticShardCheck c = direct_check(s.set, margins_of(s.set, s.stats, gamma, best.intercept));
      const double g = c.sums[2 * j] / (static_cast<double>(n) * s.stats.scale[j]);
      const double h = c.sums[2 * j + 1] / (static_cast<double>(n) * s.stats.scale[j] * s.stats.scale[j]);
      CHECK(logistic_step(gamma[j], c.sums[2 * j], c.sums[2 * j + 1], s.stats.scale[j], n, bounds[j], s.penalty) ==
            coordinate_minimiser(gamma[j], -g, h, s.penalty));
    }
  }
}

TEST_CASE("cyclic coordinate descent with the safeguarded step reaches the reference optimum") {
  for (const Setup& s : setups()) {
    INFO(s.name);
    const ReferenceSolution best = reference_solve(s.set, s.stats, s.intercept, s.penalty);
    const auto bounds = step_bounds(s.stats);
    const std::uint32_t p = s.set.features;
    std::vector<double> gamma(p, 0.0);
    double b = 0;
    Certificate c;
    for (int sweep = 0; sweep < 500; ++sweep) {
      for (std::uint32_t k = 0; k <= p; ++k) {
        if (k == p ? !s.intercept : !s.stats.usable[k]) continue;
        const LogisticShardCheck sums = direct_check(s.set, margins_of(s.set, s.stats, gamma, b));
        if (k == p) b = intercept_step(b, sums.sums[2 * k], sums.sums[2 * k + 1], s.set.samples());
        else
          gamma[k] = logistic_step(gamma[k], sums.sums[2 * k], sums.sums[2 * k + 1], s.stats.scale[k], s.set.samples(),
                                   bounds[k], s.penalty);
      }
      c = certificate_at(s, gamma, b, true);
      if (c.kkt_violation < 1e-11) break;
    }
    CHECK(c.kkt_violation < 1e-11);
    CHECK(c.objective == doctest::Approx(best.objective).epsilon(1e-12));
    CHECK(c.duality_gap < 1e-10);
  }
}
