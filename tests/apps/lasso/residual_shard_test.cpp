// tests/apps/lasso/residual_shard_test.cpp — a worker's own active-set cycles: plain coordinate descent's answer, the residual kept in step, refused where the worker lacks rows.
#include <doctest/doctest.h>

#include <cmath>
#include <random>
#include <vector>

#include "lasso/column_stats.hpp"
#include "lasso/penalty.hpp"
#include "lasso/residual_shard.hpp"
#include "cycles_to_end.hpp"

using namespace gyre;
using namespace gyre::lasso;

namespace {

// n rows of p dense columns: x_ij = column(j, z_i, d) with z_i a normal draw a row and d one a
// value, and y_i = offset + Σ_j weight(j)·x_ij + noise times a normal draw.
template <class Column, class Weight>
data::RegressionSet dense_rows(std::uint64_t n, std::uint32_t p, std::uint64_t seed, double offset, double noise,
                               Column column, Weight weight) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal;
  data::RegressionSet set;
  set.features = p;
  std::vector<std::uint32_t> cols(p);
  std::vector<double> values(p);
  for (std::uint64_t i = 0; i < n; ++i) {
    const double z = normal(rng);
    double y = offset;
    for (std::uint32_t j = 0; j < p; ++j) {
      cols[j] = j;
      values[j] = column(j, z, normal(rng));
      y += weight(j) * values[j];
    }
    set.add_row(i, y + noise * normal(rng), cols, values);
  }
  return set;
}

// Columns with means away from 0 (the intercept matters) and spreads growing with j.
data::RegressionSet dense_regression(std::uint64_t n, std::uint32_t p, std::uint64_t seed) {
  return dense_rows(
      n, p, seed, 1.5, 1.0, [](std::uint32_t j, double, double d) { return 2.0 + d * (1 + j); },
      [](std::uint32_t j) { return j % 2 ? 0.8 : -0.5; });
}

// Columns that are one signal plus a little noise each: cyclic coordinate descent crawls.
data::RegressionSet correlated_regression(std::uint64_t n, std::uint32_t p, std::uint64_t seed) {
  return dense_rows(
      n, p, seed, 0.0, 0.1, [](std::uint32_t, double z, double d) { return z + 0.05 * d; },
      [p](std::uint32_t j) { return j < p / 2 ? 1.0 : -0.3; });
}

// Textbook cyclic coordinate descent on explicitly centred dense columns, to a tiny step
// (`sweeps`: how many it took).
std::vector<double> plain(const data::RegressionSet& set, const ColumnStats& stats, const Penalty& penalty,
                          int* sweeps = nullptr) {
  const std::size_t n = set.samples(), p = set.features;
  std::vector<double> x(n * p), r(n), gamma(p, 0.0);
  for (std::size_t i = 0; i < n; ++i) {
    r[i] = set.y[i] - stats.y_offset;
    for (std::size_t e = set.row_begin[i]; e < set.row_begin[i + 1]; ++e)
      x[set.cols[e] * n + i] = (set.values[e] - stats.mean[set.cols[e]]) / stats.scale[set.cols[e]];
  }
  for (int sweep = 0; sweep < 100000; ++sweep) {
    double biggest = 0;
    for (std::size_t j = 0; j < p; ++j) {
      double g = 0;
      for (std::size_t i = 0; i < n; ++i) g += x[j * n + i] * r[i] / static_cast<double>(n);
      const double next = coordinate_minimiser(gamma[j], g, stats.curvature[j], penalty);
      for (std::size_t i = 0; i < n; ++i) r[i] -= x[j * n + i] * (next - gamma[j]);
      biggest = std::max(biggest, std::abs(next - gamma[j]));
      gamma[j] = next;
    }
    if (sweeps) *sweeps = sweep + 1;
    if (biggest < 1e-14) break;
  }
  return gamma;
}

// The residual the shard's check sums is the one its cycle left: at the cycle's coefficients
// `got` (γ of every feature, in order) every coordinate satisfies its optimality condition.
void check_residual_optimal(ResidualShard& shard, const data::RegressionSet& set, const ColumnStats& stats,
                            const std::vector<double>& got, const Penalty& penalty) {
  double mu_dot_beta = 0;
  for (std::uint32_t j = 0; j < set.features; ++j) mu_dot_beta += stats.mean[j] * got[j] / stats.scale[j];
  const ShardCheck check = shard.check(-mu_dot_beta);
  for (std::uint32_t j = 0; j < set.features; ++j)
    CHECK(kkt_violation(got[j], stats.gradient(j, check.raw_gradient[j], -mu_dot_beta), penalty) < 1e-8);
}

}  // namespace

TEST_CASE("a worker's cycles reach plain coordinate descent's answer and keep its residual exact, for 1 and 2 threads") {
  const data::RegressionSet set = dense_regression(120, 6, 3);
  const ColumnStats stats = compute_column_stats(set, true, true);
  const Penalty penalty{0.05, 0.8};
  const std::vector<double> want = plain(set, stats, penalty);
  std::vector<std::uint32_t> active{0, 1, 2, 3, 4, 5};
  for (int threads : {1, 2}) {
    CAPTURE(threads);
    ResidualShard shard(set, stats.y_offset, threads);
    shard.enable_cycles(CycleSettings{&stats, penalty.alpha, 1e-12, 100000});
    const std::vector<double> got = gyre_test::cycles_to_end(shard, penalty.lambda, active);
    REQUIRE(got.size() == active.size() + 1);
    for (std::size_t j = 0; j < active.size(); ++j) CHECK(got[j] == doctest::Approx(want[j]).epsilon(1e-9));
    CHECK(got.back() >= static_cast<double>(active.size()));
    check_residual_optimal(shard, set, stats, got, penalty);
  }
}

TEST_CASE("on correlated columns a worker's cycles extrapolate: the same answer in far fewer coordinate updates") {
  const data::RegressionSet set = correlated_regression(300, 8, 11);
  const ColumnStats stats = compute_column_stats(set, true, false);
  const Penalty penalty{0.002, 1};
  int sweeps = 0;
  const std::vector<double> want = plain(set, stats, penalty, &sweeps);
  std::vector<std::uint32_t> active{0, 1, 2, 3, 4, 5, 6, 7};
  ResidualShard shard(set, stats.y_offset, 1);
  shard.enable_cycles(CycleSettings{&stats, penalty.alpha, 1e-12, 100000});
  const std::vector<double> got = gyre_test::cycles_to_end(shard, penalty.lambda, active);
  for (std::size_t j = 0; j < active.size(); ++j) CHECK(got[j] == doctest::Approx(want[j]).epsilon(1e-7));
  MESSAGE("plain sweeps " << sweeps << ", cycle updates " << got.back());
  CHECK(got.back() < 0.25 * sweeps * static_cast<double>(active.size()));
  check_residual_optimal(shard, set, stats, got, penalty);
}

TEST_CASE("one part on two threads: the check's column blocks give the one-thread sums, bit for bit, and the same cycles") {
  const data::RegressionSet set = correlated_regression(200, 37, 4);
  const ColumnStats stats = compute_column_stats(set, true, true);
  const Penalty penalty{0.01, 1};
  std::vector<std::uint32_t> active(set.features);
  for (std::uint32_t j = 0; j < set.features; ++j) active[j] = j;
  ResidualShard one(set, stats.y_offset, 1, 1), lent(set, stats.y_offset, 1, 2);
  for (ResidualShard* shard : {&one, &lent}) shard->enable_cycles(CycleSettings{&stats, penalty.alpha, 1e-9, 50});
  CHECK(one.cycle(penalty.lambda, active) == lent.cycle(penalty.lambda, active));
  const ShardCheck a = one.check(0.25), b = lent.check(0.25);
  CHECK(a.raw_gradient == b.raw_gradient);
  CHECK(a.centred_rss == b.centred_rss);
  CHECK(a.centred_dot_y == b.centred_dot_y);
}

TEST_CASE("a cycle is refused by a worker not given every row's statistics") {
  const data::RegressionSet set = dense_regression(40, 3, 5);
  ResidualShard shard(set, 0.0, 1);
  const std::uint32_t one[] = {1};
  CHECK_THROWS_AS(shard.cycle(0.1, one), std::invalid_argument);
  CHECK_THROWS_AS(shard.push(rounds::Task{static_cast<std::uint8_t>(RoundKind::kCycle), 0.1, {1}}),
                  std::invalid_argument);
  ColumnStats other = compute_column_stats(dense_regression(30, 3, 5), true, false);
  CHECK_THROWS_AS(shard.enable_cycles(CycleSettings{&other, 1, 1e-7}), std::invalid_argument);
}
