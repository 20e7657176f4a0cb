// tests/apps/lasso/margin_shard_test.cpp — the margin shard's sums against a serial computation, bitwise repeatable per thread count, finite when saturated.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <numeric>
#include <random>
#include <utility>

#include "lasso/margin_shard.hpp"
#include "cycles_to_end.hpp"
#include "logistic_reference.hpp"
#include "support/float_checks.hpp"

using namespace gyre;
using namespace gyre::lasso;
using namespace gyre_test;
using gyre::test::same_bits;

namespace {

// Random steps on features and the intercept, applied to the shard and to plain β, b.
struct Walk {
  std::vector<double> beta;
  double intercept = 0;
  std::vector<std::vector<rounds::Step>> rounds;
};

Walk random_walk(std::uint32_t p, std::uint64_t seed, double size) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal;
  std::uniform_int_distribution<std::uint32_t> pick(0, p);  // p: the intercept
  Walk w;
  w.beta.assign(p, 0.0);
  for (int round = 0; round < 12; ++round) {
    std::vector<rounds::Step> steps;
    for (int k = 0; k < 4; ++k) {
      const rounds::Step s{pick(rng), size * normal(rng)};
      (s.param == p ? w.intercept : w.beta[s.param]) += s.delta;
      steps.push_back(s);
    }
    w.rounds.push_back(steps);
  }
  return w;
}

void check_close(const std::vector<double>& got, const std::vector<double>& want) {
  REQUIRE(got.size() == want.size());
  const double scale = std::accumulate(want.begin(), want.end(), 1.0, [](double a, double b) { return a + std::abs(b); });
  for (std::size_t k = 0; k < got.size(); ++k) CHECK(got[k] == doctest::Approx(want[k]).epsilon(1e-12).scale(scale));
}

}  // namespace

TEST_CASE("the margin shard's partials and check equal a serial computation, for 1, 2 and 3 threads") {
  const RegressionSet set = generated_classes(300, 20, 0.3, 3);
  ColumnStats unit_scale;
  unit_scale.scale.assign(set.features, 1.0);
  const Walk walk = random_walk(set.features, 11, 0.4);
  const auto m = margins_of(set, unit_scale, walk.beta, walk.intercept);
  const LogisticShardCheck want = direct_check(set, m);
  std::vector<std::uint32_t> every(set.features + 1);
  std::iota(every.begin(), every.end(), 0u);
  for (int threads : {1, 2, 3}) {
    INFO("threads " << threads);
    MarginShard shard(set, threads);
    for (const auto& steps : walk.rounds) shard.apply(steps);
    std::vector<double> partial(2 * every.size());
    shard.partials(every, partial);
    check_close(partial, want.sums);
    const LogisticShardCheck got = shard.check();
    check_close(got.sums, want.sums);
    check_close(got.with_p, want.with_p);
    check_close(got.with_not_p, want.with_not_p);
    CHECK(got.loss == doctest::Approx(want.loss).epsilon(1e-12));
    CHECK(got.entropy == doctest::Approx(want.entropy).epsilon(1e-12));
    for (const LogisticDualPoint point : {LogisticDualPoint{1, 0}, LogisticDualPoint{0.6, 0.2}, LogisticDualPoint{0.9, -0.3}})
      CHECK(shard.dual_sum(point) == doctest::Approx(direct_dual_sum(set, m, point)).epsilon(1e-12));
    // A subset, in any order, the intercept among them.
    const std::vector<std::uint32_t> some{7, set.features, 2};
    std::vector<double> few(6);
    shard.partials(some, few);
    for (std::size_t f = 0; f < some.size(); ++f) {
      CHECK(few[2 * f] == doctest::Approx(want.sums[2 * some[f]]).epsilon(1e-12));
      CHECK(few[2 * f + 1] == doctest::Approx(want.sums[2 * some[f] + 1]).epsilon(1e-12));
    }
    // With the weighted moment Σ x_ij p_i(1 − p_i) (the intercept's: Σ p_i(1 − p_i) again).
    std::vector<double> moments(9);
    shard.partials(some, moments, true);
    for (std::size_t f = 0; f < some.size(); ++f) {
      double moment = 0;
      for (std::uint64_t i = 0; i < set.samples(); ++i) {
        const double w = sigmoid(m[i]) * sigmoid(-m[i]);
        if (some[f] == set.features) moment += w;
        const auto cols = set.row_cols(i);
        const auto vals = set.row_values(i);
        for (std::size_t e = 0; e < cols.size(); ++e)
          if (cols[e] == some[f]) moment += vals[e] * w;
      }
      CHECK(moments[3 * f] == doctest::Approx(want.sums[2 * some[f]]).epsilon(1e-12));
      CHECK(moments[3 * f + 1] == doctest::Approx(want.sums[2 * some[f] + 1]).epsilon(1e-12));
      CHECK(moments[3 * f + 2] == doctest::Approx(moment).epsilon(1e-12));
    }
  }
}

TEST_CASE("the same steps give the same bits on every run with the same thread count") {
  const RegressionSet set = generated_classes(500, 40, 0.2, 4);
  const Walk walk = random_walk(set.features, 12, 0.5);
  for (int threads : {1, 2, 3}) {
    INFO("threads " << threads);
    std::vector<LogisticShardCheck> runs;
    std::vector<double> duals;
    for (int run = 0; run < 3; ++run) {
      MarginShard shard(set, threads);
      for (const auto& steps : walk.rounds) shard.apply(steps);
      runs.push_back(shard.check());
      duals.push_back(shard.dual_sum({0.7, -0.1}));
    }
    for (int run = 1; run < 3; ++run) {
      CHECK(same_bits(runs[run].sums, runs[0].sums));
      CHECK(same_bits(runs[run].with_p, runs[0].with_p));
      CHECK(same_bits(runs[run].with_not_p, runs[0].with_not_p));
      CHECK(same_bits({runs[run].loss, runs[run].entropy, duals[run]}, {runs[0].loss, runs[0].entropy, duals[0]}));
    }
  }
}

TEST_CASE("one part on two and three threads: the check's column blocks give the one-thread bits") {
  const RegressionSet set = generated_classes(500, 40, 0.2, 4);
  const Walk walk = random_walk(set.features, 12, 0.5);
  std::vector<LogisticShardCheck> runs;
  for (int threads : {1, 2, 3}) {
    MarginShard shard(set, 1, threads);
    for (const auto& steps : walk.rounds) shard.apply(steps);
    runs.push_back(shard.check());
  }
  for (std::size_t run = 1; run < runs.size(); ++run) {
    CAPTURE(run);
    CHECK(same_bits(runs[run].sums, runs[0].sums));
    CHECK(same_bits(runs[run].with_p, runs[0].with_p));
    CHECK(same_bits(runs[run].with_not_p, runs[0].with_not_p));
    CHECK(same_bits({runs[run].loss, runs[run].entropy}, {runs[0].loss, runs[0].entropy}));
  }
}

TEST_CASE("an intercept step moves every margin, and saturated margins (|m| ≈ 800) stay finite") {
  const RegressionSet set = generated_classes(200, 10, 0.3, 5);
  MarginShard shard(set, 2);
  const std::uint32_t b = shard.intercept_id();
  for (double at : {800.0, -800.0}) {
    shard.apply(std::vector<rounds::Step>{{b, at}});
    const LogisticShardCheck c = shard.check();
    const auto m = std::vector<double>(set.samples(), at);
    const LogisticShardCheck want = direct_check(set, m);
    for (const double v : c.sums) CHECK(std::isfinite(v));
    for (const double v : c.with_p) CHECK(std::isfinite(v));
    for (const double v : c.with_not_p) CHECK(std::isfinite(v));
    CHECK(std::isfinite(c.loss));
    CHECK(c.loss == doctest::Approx(want.loss).epsilon(1e-12));
    CHECK(c.entropy == 0);
    CHECK(c.sums[2 * b] == doctest::Approx(want.sums[2 * b]));  // Σ(p − y): every row misclassified or none
    for (const LogisticDualPoint point : {LogisticDualPoint{1, 0}, LogisticDualPoint{0.5, 0.9}, LogisticDualPoint{0.5, -0.9}}) {
      const double dual = shard.dual_sum(point);
      CHECK(std::isfinite(dual));
      CHECK(dual <= 0);
    }
    shard.apply(std::vector<rounds::Step>{{b, -at}});
  }
  // Back at m = 0: p = 1/2 everywhere.
  const LogisticShardCheck c = shard.check();
  CHECK(c.loss == doctest::Approx(static_cast<double>(set.samples()) * std::log(2.0)));
  CHECK(c.sums[2 * b + 1] == doctest::Approx(0.25 * static_cast<double>(set.samples())));
}

TEST_CASE("the margin shard refuses labels other than 0/1 and parameters beyond the intercept") {
  RegressionSet set = generated_classes(20, 3, 0.5, 6);
  MarginShard shard(set, 1);
  std::vector<double> out(2);
  CHECK_THROWS_AS(shard.partials(std::vector<std::uint32_t>{4}, out), std::out_of_range);
  CHECK_THROWS_AS(shard.apply(std::vector<rounds::Step>{{5, 1.0}}), std::out_of_range);
  set.y[3] = -1;
  CHECK_THROWS_AS(MarginShard(set, 1), std::invalid_argument);
}

TEST_CASE("a worker's logistic cycle reaches the reference optimum, centred columns and intercept included") {
  RegressionSet set = generated_classes(200, 8, 1.0, 21);
  for (std::uint64_t i = 0; i < set.samples(); ++i)
    for (std::uint64_t e = set.row_begin[i]; e < set.row_begin[i + 1]; ++e)
      if (set.cols[e] < 3) set.values[e] += 10.0;  // stepped centred
  for (const bool intercept : {true, false}) {
    CAPTURE(intercept);
    const ColumnStats stats = compute_column_stats(set, intercept, false);
    const LogisticStepper stepper(stats, intercept);
    CHECK(stepper.centred(0) == intercept);
    CHECK(!stepper.centred(5));
    const Penalty penalty{0.01, 0.9};
    const ReferenceSolution want = reference_solve(set, stats, intercept, penalty);
    std::vector<std::uint32_t> params(set.features);
    std::iota(params.begin(), params.end(), 0u);
    if (intercept) params.push_back(set.features);
    // Parts and threads: one each, two each, and one part on two threads (the rows' sums of the
    // line search and the margins' refresh then in blocks, RowParts::sum_blocks).
    for (const std::pair<int, int>& layout : {std::pair{1, 1}, std::pair{2, 2}, std::pair{1, 2}}) {
      const int parts = layout.first, threads = layout.second;
      CAPTURE(parts);
      CAPTURE(threads);
      MarginShard shard(set, parts, threads);
      shard.enable_cycles(LogisticCycleSettings{&stepper, penalty.alpha, 1e-12, 100000});
      const std::vector<double> got = gyre_test::cycles_to_end(shard, penalty.lambda, params);
      REQUIRE(got.size() == params.size() + 1);
      std::vector<double> gamma(got.begin(), got.begin() + set.features);
      const double b = intercept ? got[set.features] : 0.0;
      CHECK(objective(set, stats, penalty, gamma, b) == doctest::Approx(want.objective).epsilon(1e-10));
      // The shard's margins are the cycle's: its own check is at the optimum.
      const LogisticShardCheck c = shard.check();
      CHECK(certify_logistic(gamma, c, stats, intercept, penalty).kkt_violation < 1e-8);
    }
  }
  MarginShard without(set, 1);
  const std::uint32_t one[] = {1};
  CHECK_THROWS_AS(without.cycle(0.1, one), std::invalid_argument);
}
