// tests/lib/ps/barrier_test.cpp — the barrier rules, the peer sampling, and the simulator that runs them.
#include <doctest/doctest.h>

#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>

#include "gyre/ps/barrier.hpp"
#include "gyre/simulation/barrier_simulation.hpp"
#include "lib/ps/small_run.hpp"

using namespace gyre::ps;
using namespace gyre::simulation;
using gyre_test::small_run;

namespace {

std::int64_t spread(const SimulationResult& r) {
  const auto [lo, hi] = std::minmax_element(r.steps.begin(), r.steps.end());
  return *hi - *lo;
}

}  // namespace

TEST_CASE("barrier specs parse, print back, and refuse what is not one") {
  for (const char* text : {"bsp", "asp", "ssp:4", "pbsp:10", "pssp:10:4", "ssp:0", "pbsp:0"})
    CHECK(BarrierSpec::parse(text).name() == text);
  const auto list = BarrierSpec::parse_list("bsp,ssp:4,asp,pbsp:10,pssp:10:4");
  REQUIRE(list.size() == 5);
  CHECK(list[4].kind == BarrierKind::kPssp);
  CHECK(list[4].sample == 10);
  CHECK(list[4].staleness == 4);
  for (const char* bad : {"", "bs", "ssp", "ssp:", "ssp:-1", "ssp:x", "pssp:10", "pbsp:1:2", "bsp:1", "asp,"})
    CHECK_THROWS_WITH_AS(BarrierSpec::parse_list(bad), doctest::Contains("barrier '"), std::invalid_argument);
}

TEST_CASE("the rules: BSP waits for every peer's clock, SSP allows s ahead, ASP never waits") {
  std::vector<std::int64_t> clocks{5, 4, 6, 5};
  const ClockList v(clocks, 0);
  const std::vector<int> none;
  CHECK(Barrier(BarrierSpec::parse("bsp")).decide(5, none, v) == Decision::kWait);  // worker 1 is at 4
  CHECK(Barrier(BarrierSpec::parse("bsp")).decide(4, none, v) == Decision::kAdvance);
  CHECK(Barrier(BarrierSpec::parse("ssp:1")).decide(5, none, v) == Decision::kAdvance);
  CHECK(Barrier(BarrierSpec::parse("ssp:1")).decide(6, none, v) == Decision::kWait);
  CHECK(Barrier(BarrierSpec::parse("asp")).decide(1000, none, v) == Decision::kAdvance);
  // Sampled: only the drawn peers count.
  const std::vector<int> fast{2, 3}, slow{1};
  CHECK(Barrier(BarrierSpec::parse("pbsp:2")).decide(5, fast, v) == Decision::kAdvance);
  CHECK(Barrier(BarrierSpec::parse("pbsp:1")).decide(5, slow, v) == Decision::kWait);
  CHECK(Barrier(BarrierSpec::parse("pssp:1:1")).decide(5, slow, v) == Decision::kAdvance);
  CHECK(Barrier(BarrierSpec::parse("pbsp:0")).decide(1000, none, v) == Decision::kAdvance);
  // A finished peer never holds anyone.
  clocks = {5, Barrier::kFinished, 5, 5};
  CHECK(Barrier(BarrierSpec::parse("bsp")).decide(5, none, v) == Decision::kAdvance);
}

TEST_CASE("peer samples: β distinct others without replacement, all of them at β ≥ P−1, uniform over peers") {
  gyre::Random random(7, 0);
  std::vector<int> sample;
  for (int workers : {1, 2, 5, 30, 200}) {
    for (int beta : {0, 1, 3, 10, 64, 500}) {
      Barrier b(BarrierSpec{BarrierKind::kPbsp, 0, beta});
      for (int self : {0, workers / 2, workers - 1}) {
        b.draw(self, workers, random, sample);
        CHECK(static_cast<int>(sample.size()) == std::min(beta, workers - 1));
        const std::set<int> distinct(sample.begin(), sample.end());
        CHECK(distinct.size() == sample.size());
        CHECK(distinct.count(self) == 0);
        for (int p : sample) CHECK((p >= 0 && p < workers));
      }
    }
  }
  // Both code paths (Floyd for small β, a partial shuffle for large β) hit every peer equally.
  for (int beta : {2, 15}) {
    Barrier b(BarrierSpec{BarrierKind::kPssp, 1, beta});
    std::map<int, int> hits;
    const int draws = 20000;
    for (int i = 0; i < draws; ++i) {
      b.draw(3, 17, random, sample);
      for (int p : sample) ++hits[p];
    }
    CHECK(hits.size() == 16);
    const double expected = draws * beta / 16.0;
    for (const auto& hit : hits) {
      const int peer = hit.first, n = hit.second;
      CAPTURE(peer);
      CHECK(std::abs(n - expected) < 0.06 * expected);
    }
  }
  Barrier global(BarrierSpec::parse("ssp:3"));
  global.draw(0, 10, random, sample);
  CHECK(sample.empty());
}

TEST_CASE("simulated BSP keeps every worker within one step; SSP within s+1; ASP never waits") {
  const auto o = small_run(40, 150, 3);
  const auto bsp = simulate(o, BarrierSpec::parse("bsp"));
  CHECK(spread(bsp) <= 1);
  CHECK(bsp.waits > 0);
  for (int s : {1, 4}) {
    const auto ssp = simulate(o, BarrierSpec{BarrierKind::kSsp, s, 0});
    CHECK(spread(ssp) <= s + 1);
    CHECK(ssp.quantile(0.5) >= bsp.quantile(0.5));
  }
  const auto asp = simulate(o, BarrierSpec::parse("asp"));
  CHECK(asp.waits == 0);
  CHECK(asp.waited == 0);
  CHECK(asp.quantile(0.5) > simulate(o, BarrierSpec::parse("ssp:4")).quantile(0.5));
  // ASP steps are each worker's own draws: the mean step time says roughly how many.
  CHECK(asp.mean() == doctest::Approx(150 / o.steps.mean()).epsilon(0.1));
}

TEST_CASE("simulated pBSP with β = 0 is ASP and with β = P−1 is BSP, exactly; pSSP(P−1, s) is SSP(s)") {
  for (std::uint64_t seed : {1u, 2u, 3u}) {
    const auto o = small_run(25, 120, seed);
    CAPTURE(seed);
    CHECK(simulate(o, BarrierSpec::parse("pbsp:0")).steps == simulate(o, BarrierSpec::parse("asp")).steps);
    CHECK(simulate(o, BarrierSpec::parse("pssp:0:3")).steps == simulate(o, BarrierSpec::parse("asp")).steps);
    const auto bsp = simulate(o, BarrierSpec::parse("bsp"));
    const auto full = simulate(o, BarrierSpec::parse("pbsp:24"));
    CHECK(full.steps == bsp.steps);
    CHECK(full.waits == bsp.waits);
    CHECK(full.waited == doctest::Approx(bsp.waited));
    CHECK(simulate(o, BarrierSpec::parse("pbsp:1000")).steps == bsp.steps);
    CHECK(simulate(o, BarrierSpec::parse("pssp:24:2")).steps == simulate(o, BarrierSpec::parse("ssp:2")).steps);
  }
}

TEST_CASE("simulated pBSP sits between BSP and ASP, tighter with a larger sample; runs repeat with a seed") {
  const auto o = small_run(100, 200, 11);
  const auto bsp = simulate(o, BarrierSpec::parse("bsp"));
  const auto asp = simulate(o, BarrierSpec::parse("asp"));
  const auto p2 = simulate(o, BarrierSpec::parse("pbsp:2"));
  const auto p16 = simulate(o, BarrierSpec::parse("pbsp:16"));
  CHECK(bsp.quantile(0.5) < p16.quantile(0.5));
  CHECK(p16.quantile(0.5) <= p2.quantile(0.5));
  CHECK(p2.quantile(0.5) < asp.quantile(0.5));
  CHECK(spread(p16) <= spread(p2));
  CHECK(simulate(o, BarrierSpec::parse("pbsp:16")).steps == p16.steps);
  CHECK(simulate(small_run(100, 200, 12), BarrierSpec::parse("pbsp:16")).steps != p16.steps);
}

TEST_CASE("step-time laws parse with their means, and bad ones are refused") {
  CHECK(StepTimes::parse("gamma:2:1").mean() == doctest::Approx(2));
  CHECK(StepTimes::parse("gamma:2:1:0.1:11").mean() == doctest::Approx(2 * (0.9 + 1.1)));
  CHECK(StepTimes::parse("exp:3").mean() == doctest::Approx(3));
  CHECK(StepTimes::parse("fixed:0.5").mean() == doctest::Approx(0.5));
  CHECK(StepTimes::parse("gamma:2:0.5:0.05:4").name() == "gamma:2:0.5:0.05:4");
  for (const char* bad : {"gamma", "gamma:2", "gamma:0:1", "gamma:2:1:2:3", "gamma:2:1:0.1", "exp:-1", "pareto:1", "fixed:x"})
    CHECK_THROWS_WITH_AS(StepTimes::parse(bad), doctest::Contains("step times '"), std::invalid_argument);
  auto o = small_run(3, 10, 1);
  o.steps = StepTimes::parse("fixed:1");
  // Fixed 1-second steps: every barrier reaches step 10 at t = 10 (the event at the end time counts).
  for (const char* b : {"bsp", "asp", "pbsp:1"}) CHECK(simulate(o, BarrierSpec::parse(b)).quantile(0.5) == 10);
}
