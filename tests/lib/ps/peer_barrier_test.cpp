// tests/lib/ps/peer_barrier_test.cpp — barriers run over the data plane: staleness bounds under random delays, on every backend.
#include <doctest/doctest.h>

#include <atomic>
#include <cstring>
#include <future>
#include <numeric>
#include <random>
#include <thread>

#include "gyre/ps/peer_barrier.hpp"
#include "lib/net/backends.hpp"
#include "lib/ps/quorum_rule.hpp"

using namespace gyre;
using namespace std::chrono_literals;
using ps::Barrier;
using ps::BarrierSpec;
using ps::PeerBarrier;
using ps::Sampling;

namespace {

std::vector<int> ranks(int n) {
  std::vector<int> r(static_cast<std::size_t>(n));
  std::iota(r.begin(), r.end(), 0);
  return r;
}

struct Outcome {
  std::int64_t max_lead = 0;  // the most any worker was ahead of the slowest when it started a step
  int short_of_quorum = 0;    // steps started with fewer than ⌈(P−1)/2⌉ others within 2 clocks
  std::uint64_t queries = 0;
  std::uint64_t waits = 0;
};

// P workers take `steps` steps of random length (0–2 ms, one in ten 8 ms: stragglers) under
// `barrier`. Each publishes its clock in a shared table before tick(), and after every wait()
// measures its lead over the slowest entry: since clocks only grow, that is an upper bound on
// its lead at the moment the barrier let it go. Likewise it counts the others within 2 clocks
// of it, a lower bound on their number then.
template <class B>
Outcome run_barrier(const Barrier& rule, int workers, int steps, std::uint64_t seed) {
  auto groups = B::make(workers);
  std::vector<std::atomic<std::int64_t>> table(static_cast<std::size_t>(workers));
  std::vector<std::future<Outcome>> running;
  for (int w = 0; w < workers; ++w)
    running.push_back(std::async(std::launch::async, [&, w] {
      runtime::Mailbox inbox(*groups[static_cast<std::size_t>(w)]);
      PeerBarrier barrier(inbox, ranks(workers), rule, {20s, seed});
      std::mt19937_64 random(seed * 31 + static_cast<std::uint64_t>(w));
      Outcome o;
      for (int s = 0; s < steps; ++s) {
        const auto ms = random() % 10 == 0 ? 8 : static_cast<int>(random() % 3);
        std::this_thread::sleep_for(std::chrono::milliseconds(ms));
        table[static_cast<std::size_t>(w)] = s + 1;
        barrier.tick();
        barrier.wait();
        std::int64_t slowest = s + 1;
        int near = 0;
        for (const auto& c : table) {
          slowest = std::min<std::int64_t>(slowest, c);
          near += c >= s + 1 - 2;
        }
        o.max_lead = std::max(o.max_lead, s + 1 - slowest);
        if (near - 1 < gyre_test::quorum_of(workers - 1)) ++o.short_of_quorum;
      }
      barrier.finish();
      o.queries = barrier.queries_sent();
      o.waits = barrier.waits();
      return o;
    }));
  Outcome all;
  for (auto& r : running) {
    const auto o = r.get();
    all.max_lead = std::max(all.max_lead, o.max_lead);
    all.short_of_quorum += o.short_of_quorum;
    all.queries += o.queries;
    all.waits += o.waits;
  }
  return all;
}

template <class B>
Outcome run_barrier(const std::string& spec, int workers, int steps, std::uint64_t seed) {
  return run_barrier<B>(BarrierSpec::parse(spec), workers, steps, seed);
}

}  // namespace

TEST_CASE_TEMPLATE("SSP never lets a worker start a step more than s clocks ahead of the slowest", B, GYRE_TEST_BACKENDS) {
  for (std::uint64_t seed : {1u, 2u}) {
    for (int s : {0, 1, 3}) {
      CAPTURE(seed);
      CAPTURE(s);
      const auto o = run_barrier<B>("ssp:" + std::to_string(s), 4, 30, seed);
      CHECK(o.max_lead <= s);
      CHECK(o.waits > 0);  // with stragglers somebody was held
    }
  }
}

TEST_CASE_TEMPLATE("BSP is SSP with s = 0, and pBSP/pSSP sampling every peer keep the same bounds", B, GYRE_TEST_BACKENDS) {
  CHECK(run_barrier<B>("bsp", 4, 30, 5).max_lead == 0);
  CHECK(run_barrier<B>("pbsp:3", 4, 30, 6).max_lead == 0);
  CHECK(run_barrier<B>("pssp:3:2", 4, 30, 7).max_lead <= 2);
}

TEST_CASE_TEMPLATE("ASP and pBSP with β = 0 never wait and never ask anybody", B, GYRE_TEST_BACKENDS) {
  for (const char* spec : {"asp", "pbsp:0", "pssp:0:2"}) {
    CAPTURE(spec);
    const auto o = run_barrier<B>(spec, 3, 20, 3);
    CHECK(o.queries == 0);
    CHECK(o.waits == 0);
  }
}

TEST_CASE_TEMPLATE("per-step sampling: pBSP with a small sample asks only β peers per held step", B, GYRE_TEST_BACKENDS) {
  const auto o = run_barrier<B>(Barrier(BarrierSpec::parse("pbsp:1"), Sampling::kPerStep), 5, 30, 9);
  CHECK(o.queries <= o.waits);  // one question per held step at most
  CHECK(o.queries > 0);
}

TEST_CASE_TEMPLATE("per-check sampling: β = P−1 keeps BSP's and SSP's bounds; a small β runs to the end", B,
                   GYRE_TEST_BACKENDS) {
  CHECK(run_barrier<B>(Barrier(BarrierSpec::parse("pbsp:3"), Sampling::kPerCheck), 4, 30, 6).max_lead == 0);
  CHECK(run_barrier<B>(Barrier(BarrierSpec::parse("pssp:3:2"), Sampling::kPerCheck), 4, 30, 7).max_lead <= 2);
  const auto o = run_barrier<B>(Barrier(BarrierSpec::parse("pbsp:1"), Sampling::kPerCheck), 5, 30, 9);
  CHECK(o.queries > 0);
  CHECK(o.waits > 0);
}

TEST_CASE_TEMPLATE("an embedder's rule runs over the data plane and is obeyed: half the peers within 2 clocks", B,
                   GYRE_TEST_BACKENDS) {
  for (std::uint64_t seed : {1u, 2u}) {
    CAPTURE(seed);
    const auto every = run_barrier<B>(Barrier(std::make_shared<gyre_test::QuorumRule>(ps::BarrierRule::kEveryPeer, 2)), 5, 30, seed);
    CHECK(every.short_of_quorum == 0);
    CHECK(every.waits > 0);
  }
  // Sampled, so it may go before every asked peer has answered: the answers left over are taken
  // in later waits, under both sampling rules.
  for (auto sampling : {Sampling::kPerStep, Sampling::kPerCheck}) {
    const auto o = run_barrier<B>(Barrier(std::make_shared<gyre_test::QuorumRule>(3, 1), sampling), 5, 30, 4);
    CHECK(o.queries > 0);
  }
}

TEST_CASE_TEMPLATE("a silent peer makes wait() fail naming it; a malformed question is refused naming its sender", B,
                   GYRE_TEST_BACKENDS) {
  auto groups = B::make(3);
  runtime::Mailbox a(*groups[0]), b(*groups[1]);
  PeerBarrier ba(a, ranks(3), BarrierSpec::parse("bsp"), {300ms, 1});
  PeerBarrier bb(b, ranks(3), BarrierSpec::parse("bsp"), {300ms, 1});
  // Rank 2 never joins: rank 0, one step ahead, asks it and hears nothing.
  ba.tick();
  bb.tick();
  CHECK_THROWS_WITH(ba.wait(), doctest::Contains("no clock from rank(s) 2"));
  // Rank 2 sends rank 1 a clock question with a 3-byte body.
  net::Message bad;
  bad.type = ps::kClockQuery;
  bad.body = Buffer(3);
  groups[2]->send(1, std::move(bad));
  CHECK_THROWS_WITH(bb.wait(), doctest::Contains("from rank 2 has 3 bytes where 8 were expected"));
}

TEST_CASE_TEMPLATE("a peer that breaks the clock protocol fails the barrier naming it", B, GYRE_TEST_BACKENDS) {
  // Rank 0 runs the barrier; rank 1 is the test's.
  auto groups = B::make(2);
  runtime::Mailbox inbox(*groups[0]);
  PeerBarrier barrier(inbox, ranks(2), BarrierSpec::parse("bsp"), {5s, 1});
  auto clock_message = [](ps::ClockMessage type, std::uint64_t tag, std::int64_t value) {
    net::Message m;
    m.type = type;
    m.tag = tag;
    m.body = Buffer(sizeof value);
    std::memcpy(m.body.data(), &value, sizeof value);
    return m;
  };
  barrier.tick();
  SUBCASE("an answer below the clock asked for") {
    auto peer = std::async(std::launch::async, [&] {
      auto q = groups[1]->receive(net::Clock::now() + 5s);
      REQUIRE(q);
      REQUIRE(q->type == ps::kClockQuery);
      groups[1]->send(0, clock_message(ps::kClockAnswer, q->tag, ps::decode_clock(*q) - 1));
    });
    CHECK_THROWS_WITH(barrier.wait(), doctest::Contains("rank 1 answered clock 0 to a question for clock 1"));
    peer.get();
  }
  SUBCASE("a second finish") {
    groups[1]->send(0, clock_message(ps::kClockFinished, 0, 0));
    groups[1]->send(0, clock_message(ps::kClockFinished, 0, 0));
    CHECK_THROWS_WITH(barrier.wait(), doctest::Contains("clock message from rank 1 after it finished"));
  }
  SUBCASE("a second question before the first is answered") {
    groups[1]->send(0, clock_message(ps::kClockQuery, 0, 100));
    groups[1]->send(0, clock_message(ps::kClockQuery, 1, 100));
    CHECK_THROWS_WITH(barrier.wait(), doctest::Contains("clock message from rank 1 while its last question is unanswered"));
  }
}
