// tests/lib/ps/p2p_job_test.cpp — the peer-to-peer engine: exactly-once pushes, staleness bounds under stragglers, user barriers, failures; every backend.
#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <future>
#include <numeric>
#include <optional>
#include <memory>
#include <random>
#include <thread>

#include "gyre/ps/ps_job.hpp"
#include "gyre/ps/p2p_owner.hpp"
#include "gyre/ps/p2p_protocol.hpp"
#include "gyre/runtime/failure.hpp"
#include "lib/net/backends.hpp"
#include "support/multiprocess.hpp"

using namespace gyre;
using namespace gyre::ps;
using namespace gyre::ps::p2p;
using namespace std::chrono_literals;

namespace {

P2pLayout p2p_layout(int peers, Key keys, Sharding sharding) {
  P2pLayout l;
  l.peers = peers;
  l.keys = keys;
  l.value_size = 2;
  l.sharding = sharding;
  return l;
}

P2pJobOptions p2p_options(ps::Barrier barrier, std::uint64_t seed) {
  P2pJobOptions o;
  o.barrier = std::move(barrier);
  o.timeout = 20s;
  o.seed = seed;
  return o;
}

// A bounded straggler: most steps take no time, one in `one_in` sleeps up to `max_ms`.
void straggle(std::mt19937_64& random, int one_in, int max_ms) {
  if (random() % static_cast<std::uint64_t>(one_in) == 0)
    std::this_thread::sleep_for(std::chrono::milliseconds(1 + random() % static_cast<std::uint64_t>(max_ms)));
}

// The clock bound the staleness tests check, end to end. `completed[q]` is the number of steps
// peer q has computed (set as its push returns, before its barrier ticks), so it is never below
// the clock q's barrier tells anyone. A wrapped rule, each time it lets a peer at clock c go
// on, has heard n looked-at peers at c − s or later; each is a distinct other peer, so at least
// n + 1 entries of `completed` (the peer itself included) must be at c − s or later.
struct ClockTable {
  explicit ClockTable(int peers) : completed(static_cast<std::size_t>(peers)) {}
  std::vector<std::atomic<std::int64_t>> completed;
  std::atomic<int> advances{0}, breaches{0}, rule_breaches{0};
  std::atomic<std::int64_t> max_lead{0};  // over the slowest peer, at the start of a step
};

class CheckedRule final : public ps::BarrierRule {
 public:
  // `staleness`: the s of the bound; `share`: the part of the looked-at peers the rule promises within it.
  CheckedRule(std::shared_ptr<const ps::BarrierRule> inner, ClockTable& table, std::int64_t staleness, double share)
      : inner_(std::move(inner)), table_(table), s_(staleness), share_(share) {}
  std::string name() const override { return "checked:" + inner_->name(); }
  int peers() const override { return inner_->peers(); }
  bool slowest_suffices() const override { return inner_->slowest_suffices(); }
  std::int64_t required(std::int64_t clock) const override { return inner_->required(clock); }
  ps::Decision decide(std::int64_t clock, std::span<const std::int64_t> peers) const override {
    const auto d = inner_->decide(clock, peers);
    if (d != ps::Decision::kAdvance) return d;
    ++table_.advances;
    const std::int64_t bound = clock - s_;
    const auto near = static_cast<std::size_t>(std::count_if(peers.begin(), peers.end(), [&](std::int64_t c) { return c >= bound; }));
    const std::size_t looked = inner_->slowest_suffices() ? table_.completed.size() - 1 : peers.size();
    const std::size_t heard_near = inner_->slowest_suffices() ? (near == 1 ? looked : 0) : near;
    // The rule's own promise on what it heard.
    if (static_cast<double>(heard_near) + 1e-9 < share_ * static_cast<double>(looked)) ++table_.rule_breaches;
    // What the clocks really were.
    std::size_t really_near = 0;
    for (const auto& c : table_.completed)
      if (c.load() >= bound) ++really_near;
    if (really_near < heard_near + 1) ++table_.breaches;
    return d;
  }

 private:
  std::shared_ptr<const ps::BarrierRule> inner_;
  ClockTable& table_;
  std::int64_t s_;
  double share_;
};

// "Go when at least `share` of the looked-at peers are within s steps": an embedder's rule.
class ShareRule final : public ps::BarrierRule {
 public:
  ShareRule(int peers, std::int64_t s, double share) : peers_(peers), s_(s), share_(share) {}
  std::string name() const override { return "share:" + std::to_string(peers_) + ":" + std::to_string(s_); }
  int peers() const override { return peers_; }
  std::int64_t required(std::int64_t clock) const override { return clock - s_; }
  ps::Decision decide(std::int64_t clock, std::span<const std::int64_t> peers) const override {
    const auto near = std::count_if(peers.begin(), peers.end(), [&](std::int64_t c) { return c >= required(clock); });
    return static_cast<double>(near) >= share_ * static_cast<double>(peers.size()) - 1e-9 ? ps::Decision::kAdvance
                                                                                         : ps::Decision::kWait;
  }

 private:
  int peers_;
  std::int64_t s_;
  double share_;
};

// P peers, `steps` steps; peer 0 and 1 straggle more. Each step every peer pushes 1 to a random
// half of the keys (counted in `sent`), and records its completed steps in the table.
template <class B>
P2pJobResult run_counted(const P2pLayout& l, ps::Barrier barrier, int steps, ClockTable& table,
                         std::vector<std::atomic<std::uint64_t>>& sent, std::uint64_t seed) {
  P2pProgram p;
  p.push = [&, seed](Worker& peer, std::span<const Key> keys) {
    thread_local std::mt19937_64 random;
    if (peer.clock() == 0) random.seed(seed * 1000 + static_cast<std::uint64_t>(peer.index()));
    const std::int64_t c = peer.clock();
    std::int64_t slowest = c;
    for (const auto& q : table.completed) slowest = std::min<std::int64_t>(slowest, q.load());
    std::int64_t lead = table.max_lead.load();
    while (c - slowest > lead && !table.max_lead.compare_exchange_weak(lead, c - slowest)) {
    }
    straggle(random, peer.index() < 2 ? 3 : 10, peer.index() < 2 ? 6 : 2);
    (void)peer.get(keys);  // reads from every owner
    KeyValues updates;
    for (Key k : keys)
      if (random() % 2 == 0) {
        updates.emplace_back(k, Value(l.value_size, 1.0));
        ++sent[static_cast<std::size_t>(k)];
      }
    table.completed[static_cast<std::size_t>(peer.index())] = c + 1;
    return updates;
  };
  p.stop = [steps](Worker& peer) { return peer.clock() >= steps; };
  return run_p2p(p2p_job(l, B::runtime_backend()), l, p, p2p_options(std::move(barrier), seed)).value();
}

ps::Barrier checked(const ps::Barrier& b, ClockTable& table, std::int64_t s, double share) {
  // The built-in rule behind `b`, shared without copying: b outlives the run in the caller.
  auto inner = std::shared_ptr<const ps::BarrierRule>(std::shared_ptr<const ps::BarrierRule>{}, &b.rule());
  return ps::Barrier(std::make_shared<CheckedRule>(inner, table, s, share), b.sampling());
}

}  // namespace

TEST_CASE_TEMPLATE("p2p: every push is applied exactly once by its key's owner, range and hash sharding", B, GYRE_TEST_BACKENDS) {
  for (auto sharding : {Sharding::kRange, Sharding::kHash}) {
    CAPTURE(static_cast<int>(sharding));
    const auto l = p2p_layout(4, 13, sharding);
    ClockTable table(4);
    std::vector<std::atomic<std::uint64_t>> sent(13);
    const auto r = run_counted<B>(l, ps::BarrierSpec::parse("pssp:2:1"), 12, table, sent, 5);
    std::uint64_t total = 0;
    for (Key k = 0; k < 13; ++k) {
      CAPTURE(k);
      CHECK(r.pushes_applied[k] == sent[k].load());
      CHECK(r.values[k] == Value(2, static_cast<double>(sent[k].load())));
      total += sent[k];
    }
    CHECK(total > 0);
    for (const auto& p : r.peers) CHECK(p.steps == 12);
  }
}

TEST_CASE_TEMPLATE("p2p: SSP and pSSP staleness bounds hold under random stragglers", B, GYRE_TEST_BACKENDS) {
  // Property: for random straggling (one step in 3 or 10 sleeps 1–6 ms; 15 steps), every time
  // the barrier lets a peer at clock c go on, the peers it heard at c − s or later really were
  // there; under SSP that is every peer, so nobody runs more than s ahead of the slowest.
  for (std::uint64_t seed = 1; seed <= 3; ++seed)
    for (const char* spec : {"ssp:1", "pssp:2:1", "pssp:1:0", "bsp"}) {
      CAPTURE(seed);
      CAPTURE(spec);
      const auto bs = ps::BarrierSpec::parse(spec);
      const ps::Barrier plain(bs);
      ClockTable table(5);
      std::vector<std::atomic<std::uint64_t>> sent(7);
      run_counted<B>(p2p_layout(5, 7, Sharding::kHash), checked(plain, table, bs.staleness, 1.0), 15, table, sent, seed);
      CHECK(table.breaches == 0);
      CHECK(table.rule_breaches == 0);
      if (bs.kind == ps::BarrierKind::kSsp || bs.kind == ps::BarrierKind::kBsp)
        CHECK(table.max_lead <= bs.staleness);  // the table is never behind the clocks the barrier heard
    }
  // The check has teeth: without a barrier the same stragglers fall well behind.
  ClockTable loose(5);
  std::vector<std::atomic<std::uint64_t>> sent(7);
  run_counted<B>(p2p_layout(5, 7, Sharding::kHash), ps::BarrierSpec::parse("asp"), 15, loose, sent, 1);
  CHECK(loose.max_lead > 2);
}

TEST_CASE_TEMPLATE("p2p: an embedder's barrier (75% of sampled peers within s) drives a real run", B, GYRE_TEST_BACKENDS) {
  for (auto sampling : {ps::Sampling::kPerStep, ps::Sampling::kPerCheck}) {
    const ps::Barrier share(std::make_shared<ShareRule>(4, 1, 0.75), sampling);
    ClockTable table(6);
    std::vector<std::atomic<std::uint64_t>> sent(9);
    const auto r = run_counted<B>(p2p_layout(6, 9, Sharding::kRange), checked(share, table, 1, 0.75), 15, table, sent, 9);
    CHECK(table.advances > 0);
    CHECK(table.breaches == 0);
    CHECK(table.rule_breaches == 0);
    for (const auto& p : r.peers) CHECK(p.steps == 15);
    for (Key k = 0; k < 9; ++k) CHECK(r.pushes_applied[k] == sent[k].load());
  }
}

TEST_CASE_TEMPLATE("p2p: a peer that throws fails the job everywhere, naming it, within seconds", B, GYRE_TEST_BACKENDS) {
  P2pProgram p;
  p.push = [](Worker& peer, std::span<const Key> keys) {
    if (peer.index() == 2 && peer.clock() == 3) throw std::runtime_error("peer 2 exploded");
    (void)peer.get(keys);
    KeyValues u;
    for (Key k : keys) u.emplace_back(k, Value(2, 1.0));
    return u;
  };
  p.stop = [](Worker& peer) { return peer.clock() >= 50; };
  const auto l = p2p_layout(4, 6, Sharding::kRange);
  const auto started = std::chrono::steady_clock::now();
  CHECK_THROWS_WITH(run_p2p(p2p_job(l, B::runtime_backend()), l, p, p2p_options(ps::BarrierSpec{}, 1)),
                    doctest::Contains("peer 2 exploded"));
  CHECK(std::chrono::steady_clock::now() - started < 10s);
}

TEST_CASE_TEMPLATE("p2p: a silent peer fails the job at the barrier's timeout, naming it", B, GYRE_TEST_BACKENDS) {
  P2pProgram p;
  std::atomic<bool> release{false};
  p.push = [&](Worker& peer, std::span<const Key>) {
    if (peer.index() == 1 && peer.clock() == 2)
      for (int i = 0; i < 120 && !release; ++i) std::this_thread::sleep_for(10ms);  // hangs, at most 1.2 s
    return KeyValues{};
  };
  p.stop = [](Worker& peer) { return peer.clock() >= 10; };
  const auto l = p2p_layout(3, 4, Sharding::kRange);
  auto o = p2p_options(ps::BarrierSpec{}, 1);
  o.timeout = 300ms;
  const auto started = std::chrono::steady_clock::now();
  std::string what;
  try {
    run_p2p(p2p_job(l, B::runtime_backend()), l, p, o);
  } catch (const std::exception& e) {
    what = e.what();
  }
  release = true;
  CHECK(what.find("no clock from rank(s) 1") != std::string::npos);
  CHECK(std::chrono::steady_clock::now() - started < 8s);
}

TEST_CASE_TEMPLATE("p2p: a malformed push fails the job naming its sender, before anything is allocated", B, GYRE_TEST_BACKENDS) {
  const auto l = p2p_layout(2, 4, Sharding::kRange);
  runtime::Job job = p2p_job(l, B::runtime_backend());
  std::string what;
  try {
    runtime::run(job, [&](const runtime::Member& m) {
      if (m.rank == 0) {
        // A key count promising 2^32 − 1 key-values in a body of 16 bytes.
        net::Message bad;
        bad.type = ps::p2p::kPush;
        Buffer body(16);
        auto* b = reinterpret_cast<unsigned char*>(body.data());
        std::fill(b, b + 16, 0);
        std::fill(b + 8, b + 12, 0xFF);
        bad.body = std::move(body);
        m.mailbox.group().send(1, std::move(bad));
        (void)m.mailbox.receive([](const net::Message&) { return false; }, net::Clock::now() + 10s);
        return;
      }
      P2pOwner owner(m.mailbox, l, {}, {});
      owner.finish(std::chrono::steady_clock::now() + 10s);
    });
  } catch (const std::exception& e) {
    what = e.what();
  }
  CHECK(what.find("from rank 0") != std::string::npos);
}

TEST_CASE("p2p: decoders refuse keys another peer owns, out-of-range keys, wrong lengths and replies that were not asked") {
  const auto l = p2p_layout(3, 9, Sharding::kRange);  // peer 0: 0-2, 1: 3-5, 2: 6-8
  net::Message m;
  m.body = gyre::ps::encode_key_values({{4, Value(2, 1.0)}}, 0);
  CHECK(decode_owned_values(m, l, 1).size() == 1);
  CHECK_THROWS_WITH(decode_owned_values(m, l, 0), doctest::Contains("owned by peer 1"));
  m.body = gyre::ps::encode_key_values({{9, Value(2, 1.0)}}, 0);
  CHECK_THROWS_WITH(decode_owned_values(m, l, 2), doctest::Contains("outside"));
  m.body = gyre::ps::encode_key_values({{7, Value(3, 1.0)}}, 0);
  CHECK_THROWS_WITH(decode_owned_values(m, l, 2), doctest::Contains("3 doubles"));
  m.body = gyre::ps::encode_key_values({{1, Value(2, 1.0)}}, 0);
  const Key asked[] = {2};
  CHECK_THROWS_WITH(decode_get_reply(m, asked, l), doctest::Contains("where key 2"));
  const Key keys[] = {6, 8};
  m.body = gyre::ps::encode_keys(keys, 5);
  std::int64_t clock = 0;
  CHECK(decode_owned_keys(m, l, 2, clock) == std::vector<Key>{6, 8});
  CHECK(clock == 5);  // the read's bound travels in the header
  CHECK_THROWS(decode_owned_keys(m, l, 1, clock));
  for (Key k = 0; k < 9; ++k) CHECK(l.owner_of(k) == static_cast<int>(k / 3));
}

TEST_CASE("p2p: a hand-over carries the owner's values, push counts and report, and is checked like any message") {
  const auto l = p2p_layout(3, 9, Sharding::kRange);
  HandOver h;
  h.values = {{3, Value{1.5, -2.0}}, {5, Value{0.0, 7.0}}};
  h.applied = {4, 0};
  h.counters = {1, 2, 3, 4, 5, 6};
  net::Message m = encode_hand_over(h);
  const auto back = decode_hand_over(m, l, 1, 6);
  CHECK(back.values == h.values);
  CHECK(back.applied == h.applied);
  CHECK(back.counters == h.counters);
  CHECK_THROWS_WITH(decode_hand_over(m, l, 2, 6), doctest::Contains("owned by peer 1"));
  CHECK_THROWS_WITH(decode_hand_over(m, l, 1, 5), doctest::Contains("6 counters, not 5"));
  // A count that is not a whole number of pushes.
  m.body = gyre::ps::encode_key_values({{4, Value{1.0, 1.0, 0.5}}}, 0);
  CHECK_THROWS_WITH(decode_hand_over(m, l, 1, 6), doctest::Contains("took in"));
  // Values without their count.
  m.body = gyre::ps::encode_key_values({{4, Value{1.0, 1.0}}}, 0);
  CHECK_THROWS_WITH(decode_hand_over(m, l, 1, 6), doctest::Contains("in a hand-over, not 3"));
}

namespace {

// Each peer pushes 1 to "its" key every step (key q for peer q; owners by hash), so the value of
// key q is how many of q's steps have reached its owner. A read at clock c under a global
// barrier must include at least required(c) of every peer's steps; `short_reads` counts reads
// that did not.
// `bound` is the barrier whose required() is checked (the run's own, but for the control run).
template <class Backend>
P2pJobResult run_read_bound(const P2pLayout& l, const ps::Barrier& barrier, const ps::Barrier& bound, int steps,
                            std::atomic<int>& short_reads, std::atomic<int>& reads, std::uint64_t seed, Backend backend) {
  P2pProgram p;
  p.push = [&, seed](Worker& peer, std::span<const Key>) {
    thread_local std::mt19937_64 random;
    if (peer.clock() == 0) random.seed(seed * 1000 + static_cast<std::uint64_t>(peer.index()));
    straggle(random, peer.index() == 0 ? 2 : 8, peer.index() == 0 ? 8 : 2);
    std::vector<Key> all(static_cast<std::size_t>(l.peers));
    std::iota(all.begin(), all.end(), Key{0});
    const auto got = peer.get(all);
    const std::int64_t needed = bound.required(peer.clock());
    for (std::size_t q = 0; q < got.size(); ++q) {
      ++reads;
      if (got[q].value[0] < static_cast<double>(needed)) ++short_reads;
      // BSP's owners fold a step in once every peer has ended it, so a read sees no later step.
      if (barrier.rule().name() == "bsp" && got[q].value[0] != static_cast<double>(needed)) ++short_reads;
    }
    return KeyValues{{static_cast<Key>(peer.index()), Value(l.value_size, 1.0)}};
  };
  p.stop = [steps](Worker& peer) { return peer.clock() >= steps; };
  return run_p2p(p2p_job(l, std::move(backend)), l, p, p2p_options(barrier, seed)).value();
}

}  // namespace

TEST_CASE_TEMPLATE("p2p: under BSP and SSP a read includes every peer's pushes up to the barrier's bound (BSP: exactly); ASP's need not", B,
                   GYRE_TEST_BACKENDS) {
  const auto l = p2p_layout(4, 4, Sharding::kHash);
  for (std::uint64_t seed = 1; seed <= 2; ++seed)
    for (const char* spec : {"bsp", "ssp:1", "ssp:3"}) {
      CAPTURE(seed);
      CAPTURE(spec);
      std::atomic<int> short_reads{0}, reads{0};
      const ps::Barrier barrier(ps::BarrierSpec::parse(spec));
      const auto r = run_read_bound(l, barrier, barrier, 12, short_reads, reads, seed, B::runtime_backend());
      CHECK(reads.load() == 4 * 12 * 4);
      CHECK(short_reads.load() == 0);
      for (Key k = 0; k < 4; ++k) CHECK(r.values[k][0] == 12.0);
    }
  // The check has teeth: ASP's owners answer at once, and the straggler's key falls behind the
  // bound SSP(1) would promise.
  std::atomic<int> short_reads{0}, reads{0};
  (void)run_read_bound(l, ps::BarrierSpec::parse("asp"), ps::BarrierSpec::parse("ssp:1"), 12, short_reads, reads, 1,
                       B::runtime_backend());
  CHECK(short_reads.load() > 0);
}

TEST_CASE("p2p across processes: peer 0 collects every peer's keys, push counts and report; the others return nothing") {
  // Three "processes" as threads of this test, each its own run over tcp on loopback.
  const auto l = p2p_layout(3, 10, Sharding::kHash);
  const std::uint16_t port = gyre::test::free_port();
  std::vector<std::atomic<std::uint64_t>> sent(10);
  P2pProgram p;
  p.push = [&](Worker& peer, std::span<const Key> keys) {
    (void)peer.get(keys);
    KeyValues updates;
    for (Key k : keys)
      if ((k + static_cast<Key>(peer.clock()) + static_cast<Key>(peer.index())) % 3 == 0) {
        updates.emplace_back(k, Value(l.value_size, 0.5));
        ++sent[static_cast<std::size_t>(k)];
      }
    return updates;
  };
  p.stop = [](Worker& peer) { return peer.clock() >= 9; };
  std::vector<std::future<std::optional<P2pJobResult>>> processes;
  for (int rank = 0; rank < 3; ++rank)
    processes.push_back(std::async(std::launch::async, [&, rank] {
      runtime::ProcessesBackend b;
      b.launch = {rank, 3, "p2p-test"};
      b.coordinator = {"127.0.0.1", port};
      b.token = "test-token";
      b.connect_timeout = 20s;
      b.log = [](const std::string&) {};
      return run_p2p(p2p_job(l, b), l, p, p2p_options(ps::BarrierSpec::parse("ssp:1"), 3));
    }));
  std::vector<std::optional<P2pJobResult>> results;
  for (auto& f : processes) results.push_back(f.get());
  REQUIRE(results[0]);
  CHECK_FALSE(results[1]);
  CHECK_FALSE(results[2]);
  const auto& r = *results[0];
  for (Key k = 0; k < 10; ++k) {
    CAPTURE(k);
    CHECK(r.pushes_applied[k] == sent[k].load());
    REQUIRE(r.values[k].size() == 2);
    CHECK(r.values[k][0] == 0.5 * static_cast<double>(sent[k].load()));
  }
  for (const auto& peer : r.peers) CHECK(peer.steps == 9);
}
