// tests/lib/net/faults_test.cpp — injected delays keep per-link order, cut links fail the job; on every backend.
#include <doctest/doctest.h>

#include "gyre/net/group.hpp"
#include "lib/net/backends.hpp"

using namespace gyre::net;
using namespace std::chrono_literals;

namespace {
template <class B>
std::vector<std::unique_ptr<Group>> faulty(int n, const FaultSpec& spec) {
  auto groups = B::make(n);
  for (auto& g : groups) g = with_faults(std::move(g), spec);
  return groups;
}
Message numbered(std::uint64_t i) {
  Message m;
  m.type = 1;
  m.tag = i;
  return m;
}
}  // namespace

TEST_CASE_TEMPLATE("a fixed delay holds each message back at least that long", B, GYRE_TEST_BACKENDS) {
  auto g = faulty<B>(2, FaultSpec::parse_delay("fixed:40"));
  const auto sent = Clock::now();
  g[0]->send(1, numbered(0));
  auto m = g[1]->receive(sent + 10s);
  REQUIRE(m);
  CHECK(Clock::now() - sent >= 40ms);
  // To itself: no delay.
  const auto self_sent = Clock::now();
  g[1]->send(1, numbered(1));
  REQUIRE(g[1]->receive(self_sent + 10s));
  CHECK(Clock::now() - self_sent < 40ms);
}

TEST_CASE_TEMPLATE("random delays never reorder a link", B, GYRE_TEST_BACKENDS) {
  for (const char* spec : {"uniform:0:5", "gamma:2:1"}) {
    auto g = faulty<B>(2, FaultSpec::parse_delay(spec));
    for (std::uint64_t i = 0; i < 200; ++i) g[0]->send(1, numbered(i));
    for (std::uint64_t i = 0; i < 200; ++i) {
      auto m = g[1]->receive(Clock::now() + 10s);
      REQUIRE(m);
      CHECK(m->tag == i);
    }
  }
}

TEST_CASE_TEMPLATE("close-after cuts the rank's links and its peers learn it failed", B, GYRE_TEST_BACKENDS) {
  FaultSpec spec;
  spec.close_after = 3;
  auto g = faulty<B>(2, spec);
  for (std::uint64_t i = 0; i < 4; ++i) g[1]->send(0, numbered(i));
  int delivered = 0;
  try {
    while (g[0]->receive(Clock::now() + 10s)) ++delivered;
    FAIL("the peer of a cut rank must see the group fail");
  } catch (const GroupClosed& e) {
    CHECK(std::string(e.what()).find("rank 1") != std::string::npos);
  }
  CHECK(delivered <= 3);
}

TEST_CASE("delay specs are parsed or refused with the accepted forms") {
  CHECK(FaultSpec::parse_delay("none").delay == FaultSpec::Delay::kNone);
  const auto g = FaultSpec::parse_delay("gamma:2:0.5");
  CHECK(g.delay == FaultSpec::Delay::kGamma);
  CHECK(g.b == doctest::Approx(0.5));
  CHECK_THROWS_WITH_AS(FaultSpec::parse_delay("fixed"), doctest::Contains("fixed:MS"), std::invalid_argument);
  CHECK_THROWS_AS(FaultSpec::parse_delay("uniform:5:1"), std::invalid_argument);
  CHECK_THROWS_AS(FaultSpec::parse_delay("gamma:0:1"), std::invalid_argument);
  CHECK_THROWS_AS(FaultSpec::parse_delay("pareto:1:2"), std::invalid_argument);
  CHECK_THROWS_AS(FaultSpec::parse_delay("fixed:-3"), std::invalid_argument);
}
