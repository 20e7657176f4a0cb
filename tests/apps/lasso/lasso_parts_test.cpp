// tests/apps/lasso/lasso_parts_test.cpp — the Lasso pieces alone: coordinate step and gap, sampler, dependency check, round messages.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include <cereal/types/tuple.hpp>

#include "gyre/wire/codec.hpp"
#include "lasso/column_stats.hpp"
#include "lasso/coordinate_sampler.hpp"
#include "lasso/dependency_check.hpp"
#include "lasso/penalty.hpp"
#include "lasso/round_protocol.hpp"

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

TEST_CASE("the cyclic and random schedules cover every usable coordinate once per sweep") {
  std::vector<std::uint8_t> usable(23, 1);
  usable[5] = 0;
  std::vector<std::uint8_t> skip(23, 0);
  for (auto kind : {ScheduleKind::cyclic, ScheduleKind::random}) {
    CoordinateSampler s(kind, usable, 1e-6, 3);
    std::vector<std::uint32_t> seen;
    while (seen.size() < 22) {
      const auto got = s.propose(4, skip);
      REQUIRE(!got.empty());
      seen.insert(seen.end(), got.begin(), got.end());
    }
    std::set<std::uint32_t> distinct(seen.begin(), seen.begin() + 22);
    CHECK(distinct.size() == 22);
    CHECK(distinct.count(5) == 0);
    if (kind == ScheduleKind::cyclic) CHECK(std::is_sorted(seen.begin(), seen.begin() + 22));
  }
}

TEST_CASE("the priority schedule warms up uniformly, then draws ∝ |Δβ| + η and never an in-flight coordinate") {
  const std::uint32_t m = 8;
  CoordinateSampler s(ScheduleKind::priority, std::vector<std::uint8_t>(m, 1), 1e-3, 5);
  std::vector<std::uint8_t> skip(m, 0);
  CHECK(s.warming_up());
  std::set<std::uint32_t> warm;
  for (std::uint32_t j : s.propose(m, skip)) warm.insert(j);
  CHECK(warm.size() == m);
  CHECK(!s.warming_up());
  // Steps: coordinate 3 moved 3 times as far as coordinate 6, the rest not at all.
  for (std::uint32_t j = 0; j < m; ++j) s.step(j, j == 3 ? 0.3 : j == 6 ? 0.1 : 0.0);
  std::map<std::uint32_t, int> count;
  for (int draw = 0; draw < 4000; ++draw) {
    const auto got = s.propose(1, skip);
    REQUIRE(got.size() == 1);
    ++count[got[0]];
    s.restore(got);
  }
  CHECK(count[3] > 2.4 * count[6]);
  CHECK(count[3] < 3.6 * count[6]);
  CHECK(count[3] + count[6] > 3800);  // the floor (1e-3 of the largest step) is rarely drawn
  // An in-flight coordinate is not proposed; one round never holds a coordinate twice.
  skip[3] = 1;
  for (int round = 0; round < 200; ++round) {
    const auto got = s.propose(4, skip);
    CHECK(std::find(got.begin(), got.end(), 3u) == got.end());
    CHECK(std::set<std::uint32_t>(got.begin(), got.end()).size() == got.size());
    s.restore(got);
  }
}

TEST_CASE("the dependency check drops candidates correlated with kept or in-flight coordinates") {
  // Columns: 0 and 1 equal, 2 = 0 plus noise (corr ≈ 0.9), 3 unrelated, 4 all zero.
  data::RegressionSet set;
  set.features = 5;
  const double noise[] = {0.3, -0.2, 0.1, -0.4, 0.2, 0.0};
  const double other[] = {1, -1, 0, 2, 0, -1};
  for (std::uint32_t i = 0; i < 6; ++i) {
    const double a = i % 2 ? 1.0 + i : -1.0 * i;
    std::vector<std::uint32_t> cols;
    std::vector<double> vals;
    auto put = [&](std::uint32_t c, double v) {
      if (v != 0) {
        cols.push_back(c);
        vals.push_back(v);
      }
    };
    put(0, a);
    put(1, a);
    put(2, a + noise[i]);
    put(3, other[i]);
    set.add_row(i, 1.0, cols, vals);
  }
  const auto columns = data::to_columns(set);
  const auto stats = compute_column_stats(set, columns, true, false);
  CHECK(stats.usable[4] == 0);
  DependencyCheck check(set, columns, stats, 0.5);
  std::vector<std::uint8_t> busy(5, 0);
  const std::vector<std::uint32_t> all{0, 1, 2, 3};
  CHECK(check.keep(all, busy) == std::vector<std::uint32_t>{0, 3});
  CHECK(busy == std::vector<std::uint8_t>{1, 0, 0, 1, 0});
  // With 0 in flight, 1 and 2 still wait; once it is done, 1 goes.
  CHECK(check.keep(std::vector<std::uint32_t>{1, 2}, busy).empty());
  busy[0] = 0;
  check.release(0);
  CHECK(check.keep(std::vector<std::uint32_t>{1, 2}, busy) == std::vector<std::uint32_t>{1});
  // ρ ≥ 1: no check at all.
  DependencyCheck off(set, columns, stats, 1.0);
  std::vector<std::uint8_t> none(5, 0);
  CHECK(off.keep(all, none) == all);
}

TEST_CASE("round messages survive encoding, and malformed ones are refused before any allocation") {
  RoundRequest r;
  r.round = 42;
  r.kind = RoundKind::kPartials;
  r.residual_mean = -0.25;
  r.steps = {{3, 0.5}, {7, -1e-9}};
  r.features = {1, 2, 9};
  const auto m = encode_request(r);
  const auto back = decode_request(m, 10);
  CHECK(back.round == 42);
  CHECK(back.residual_mean == -0.25);
  REQUIRE(back.steps.size() == 2);
  CHECK(back.steps[1].feature == 7);
  CHECK(back.steps[1].delta == -1e-9);
  CHECK(back.features == r.features);
  CHECK_THROWS_AS(decode_request(m, 9), wire::DecodeError);  // feature 9 of 9

  net::Message short_body = encode_request(r);
  short_body.body = Buffer(short_body.body.size() - 4);
  CHECK_THROWS_AS(decode_request(short_body, 10), wire::DecodeError);
  net::Message huge = encode_request(r);
  huge.meta = wire::encode(std::make_tuple(std::uint64_t{1}, std::uint8_t{0}, 0.0, std::uint32_t{0xFFFFFFFF},
                                           std::uint32_t{0xFFFFFFFF}));
  CHECK_THROWS_AS(decode_request(huge, 10), wire::DecodeError);
  net::Message bad_kind = encode_request(r);
  bad_kind.meta = wire::encode(std::make_tuple(std::uint64_t{1}, std::uint8_t{9}, 0.0, std::uint32_t{2}, std::uint32_t{3}));
  CHECK_THROWS_AS(decode_request(bad_kind, 10), wire::DecodeError);

  RoundSums s{5, {1.5, -2.5}};
  const auto sm = encode_sums(s);
  CHECK(decode_sums(sm, 2).values == s.values);
  CHECK_THROWS_AS(decode_sums(sm, 3), wire::DecodeError);
}
