// tests/lib/ps/barrier_rule_test.cpp — barriers through the BarrierRule interface in the simulator: the built-ins as before, an embedder's rule, per-check sampling.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <vector>

#include "gyre/ps/barrier.hpp"
#include "gyre/simulation/barrier_simulation.hpp"
#include "lib/ps/quorum_rule.hpp"
#include "lib/ps/small_run.hpp"

using namespace gyre::ps;
using namespace gyre::simulation;
using gyre_test::QuorumRule;
using gyre_test::small_run;

namespace {

// Every worker's step count, folded in worker order (h ← h·1000003 + steps, mod 2⁶⁴).
std::uint64_t fingerprint(const SimulationResult& r) {
  std::uint64_t h = 0;
  for (auto s : r.steps) h = h * 1000003u + static_cast<std::uint64_t>(s);
  return h;
}

Barrier per_check(const char* spec) { return {BarrierSpec::parse(spec), Sampling::kPerCheck}; }

}  // namespace

TEST_CASE("the built-in rules through BarrierRule: every worker's steps are those of the rules before it, bit for bit") {
  // Recorded with gyre-sim of commit 8070b9f (the rules before the interface):
  //   gyre-sim --workers 60 --time 150 --delay gamma:2:1:0.05:4 --seed 4 --sweep none --csv F
  //            --barriers bsp,ssp:2,asp,pbsp:3,pbsp:59,pssp:3:2,pssp:10:1
  // folded as fingerprint() does.
  const std::pair<const char*, std::uint64_t> recorded[] = {
      {"bsp", 2021419549825685029uLL},
      {"ssp:2", 338614185152253419uLL},
      {"asp", 5460066340140703851uLL},
      {"pbsp:3", 11381853244517690149uLL},
      {"pbsp:59", 2021419549825685029uLL},
      {"pssp:3:2", 11252615821203433788uLL},
      {"pssp:10:1", 4355104776720162518uLL},
  };
  for (const auto& run : recorded) {
    const char* const spec = run.first;
    const std::uint64_t expected = run.second;
    CAPTURE(spec);
    // Per-step sampling: the only rule there was when they were recorded.
    const auto r = simulate(small_run(60, 150, 4), Barrier(BarrierSpec::parse(spec), Sampling::kPerStep));
    CHECK(fingerprint(r) == expected);
    CHECK(r.barrier == spec);
  }
}

TEST_CASE("the built-in rules answer through the interface as their specs say") {
  const std::int64_t clocks[] = {4, 7, 9};
  const auto decide = [&](const char* spec, std::int64_t clock) {
    return Barrier(BarrierSpec::parse(spec)).rule().decide(clock, clocks);
  };
  CHECK(decide("bsp", 4) == Decision::kAdvance);
  CHECK(decide("bsp", 5) == Decision::kWait);
  CHECK(decide("ssp:2", 6) == Decision::kAdvance);
  CHECK(decide("ssp:2", 7) == Decision::kWait);
  CHECK(decide("pbsp:3", 5) == Decision::kWait);
  CHECK(decide("pssp:3:1", 5) == Decision::kAdvance);
  CHECK(decide("asp", 1000) == Decision::kAdvance);
  CHECK(Barrier(BarrierSpec::parse("bsp")).rule().peers() == BarrierRule::kEveryPeer);
  CHECK(Barrier(BarrierSpec::parse("pssp:10:4")).rule().peers() == 10);
  CHECK(Barrier(BarrierSpec::parse("asp")).rule().peers() == 0);
  CHECK(Barrier(BarrierSpec::parse("ssp:3")).global());
  CHECK_FALSE(Barrier(BarrierSpec::parse("pssp:3:3")).global());
  CHECK(Barrier(BarrierSpec::parse("pssp:10:4")).name() == "pssp:10:4");
}

TEST_CASE("sampling rules by name; a barrier without a rule is refused") {
  CHECK(parse_sampling("per-step") == Sampling::kPerStep);
  CHECK(parse_sampling("per-check") == Sampling::kPerCheck);
  CHECK(sampling_name(Sampling::kPerCheck) == "per-check");
  CHECK(sampling_name(Sampling::kPerStep) == "per-step");
  CHECK_THROWS_WITH_AS(parse_sampling("sometimes"), doctest::Contains("per-step or per-check"), std::invalid_argument);
  CHECK_THROWS_AS(Barrier(std::shared_ptr<const BarrierRule>()), std::invalid_argument);
  CHECK(Barrier().name() == "bsp");
  CHECK(Barrier().sampling() == Sampling::kPerCheck);  // the Owl book's rule
}

TEST_CASE("an embedder's rule drives the simulator and is obeyed: half the peers within 2 steps of every worker") {
  for (std::uint64_t seed : {1u, 2u, 3u}) {
    CAPTURE(seed);
    const int workers = 40;
    const auto r = simulate(small_run(workers, 200, seed), Barrier(std::make_shared<QuorumRule>(BarrierRule::kEveryPeer, 2)));
    CHECK(r.barrier == "quorum:all:2");
    // A worker at c steps started its last step at c − 1, when ⌈(P−1)/2⌉ others were at c − 3
    // or later; clocks only grow.
    for (int w = 0; w < workers; ++w) {
      const auto c = r.steps[static_cast<std::size_t>(w)];
      int near = 0;
      for (int v = 0; v < workers; ++v)
        if (v != w && r.steps[static_cast<std::size_t>(v)] >= c - 3) ++near;
      CHECK(near >= gyre_test::quorum_of(workers - 1));
    }
    // Not vacuous: it held workers (ASP would not), and it is looser than SSP(2), which bounds the slowest.
    CHECK(r.waits > 0);
    const auto ssp = simulate(small_run(workers, 200, seed), BarrierSpec::parse("ssp:2"));
    CHECK(r.mean() > ssp.mean());
    const auto asp = simulate(small_run(workers, 200, seed), BarrierSpec::parse("asp"));
    CHECK(r.quantile(1) - r.quantile(0) < asp.quantile(1) - asp.quantile(0));
  }
  // Sampled, under both sampling rules: runs to the end and repeats for a seed.
  for (auto sampling : {Sampling::kPerStep, Sampling::kPerCheck}) {
    const Barrier sampled(std::make_shared<QuorumRule>(4, 1), sampling);
    CHECK(simulate(small_run(50, 100, 7), sampled).steps == simulate(small_run(50, 100, 7), sampled).steps);
  }
}

TEST_CASE("a rule that waits though every looked-at peer reached its required clock is refused, not run for ever") {
  struct Stubborn final : BarrierRule {
    std::string name() const override { return "stubborn"; }
    int peers() const override { return 2; }
    std::int64_t required(std::int64_t clock) const override { return clock - 1000; }
    Decision decide(std::int64_t, std::span<const std::int64_t>) const override { return Decision::kWait; }
  };
  CHECK_THROWS_WITH_AS(simulate(small_run(5, 10, 1), Barrier(std::make_shared<Stubborn>())), doctest::Contains("stubborn"),
                       std::logic_error);
}

TEST_CASE("per-check sampling: β = P−1 is BSP (and SSP), a small β advances at least as often as per-step, runs repeat") {
  for (std::uint64_t seed : {1u, 5u}) {
    CAPTURE(seed);
    const auto o = small_run(25, 150, seed);
    const auto bsp = simulate(o, BarrierSpec::parse("bsp"));
    CHECK(simulate(o, per_check("pbsp:24")).steps == bsp.steps);
    CHECK(simulate(o, BarrierSpec::parse("pbsp:24")).steps == bsp.steps);
    CHECK(simulate(o, per_check("pssp:24:2")).steps == simulate(o, BarrierSpec::parse("ssp:2")).steps);
    CHECK(simulate(o, per_check("pbsp:0")).steps == simulate(o, BarrierSpec::parse("asp")).steps);
  }
  const auto o = small_run(200, 200, 1);
  for (const char* spec : {"pbsp:1", "pbsp:2", "pbsp:4", "pbsp:10", "pssp:4:2"}) {
    CAPTURE(spec);
    const auto step = simulate(o, BarrierSpec::parse(spec));
    const auto check = simulate(o, per_check(spec));
    CHECK(check.quantile(0.5) >= step.quantile(0.5));
    CHECK(check.quantile(0.05) >= step.quantile(0.05));
    CHECK(check.mean() >= step.mean());
    CHECK(check.waited <= step.waited);
    CHECK(simulate(o, per_check(spec)).steps == check.steps);  // the same seed, the same steps
  }
  CHECK(simulate(small_run(200, 200, 2), per_check("pbsp:4")).steps != simulate(o, per_check("pbsp:4")).steps);
}
