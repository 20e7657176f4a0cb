// tests/lib/ps/table_staleness_test.cpp — tables with barrier rules of their own (Bösen's per-table staleness): every read of a table within its own rule, on the parameter server and peer to peer, every backend.
#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "gyre/ps/ps_job.hpp"
#include "gyre/ps/table_rules.hpp"
#include "lib/net/backends.hpp"

using namespace gyre;
using namespace gyre::ps;
using namespace std::chrono_literals;

namespace {

constexpr int kWorkers = 3;
constexpr int kSteps = 10;
const std::vector<Key> kTight{0, 1};  // table "tight"
const std::vector<Key> kLoose{2, 3};  // table "loose", SSP(3)

// Every worker adds 1 to every key at every step; worker 0 is a straggler (3 ms a step), so
// fast workers read values that lack its latest pushes unless a rule holds them back. Each step
// reads the loose table first, so what it sees is not what the tight read then waited for.
struct TableProgram {
  std::int64_t tight_bound;  // the staleness the tight table's reads are held to
  std::atomic<int> tight_violations{0}, loose_violations{0}, loose_stale{0}, reads{0};

  Program program() {
    Program p;
    p.push = [this](Worker& w, std::span<const Key>) {
      if (w.index() == 0) std::this_thread::sleep_for(3ms);
      const auto c = w.clock();
      for (const auto& v : w.get(kLoose)) {
        ++reads;
        if (v.value[0] < kWorkers * static_cast<double>(c - 3)) ++loose_violations;
        if (v.value[0] < kWorkers * static_cast<double>(c)) ++loose_stale;
      }
      for (const auto& v : w.get(kTight)) {
        ++reads;
        if (v.value[0] < kWorkers * static_cast<double>(c - tight_bound)) ++tight_violations;
      }
      KeyValues updates;
      for (Key k = 0; k < 4; ++k) updates.emplace_back(k, Value{1.0});
      return updates;
    };
    p.stop = [](Worker& w) { return w.clock() >= kSteps; };
    return p;
  }
};

std::vector<Table> tables(const std::string& tight_rule) {
  return {Table{"tight", 0, 2, Barrier(BarrierSpec::parse(tight_rule))}, Table{"loose", 2, 2, Barrier(BarrierSpec::parse("ssp:3"))}};
}

// One run of `program` on `engine` ("ps" or "p2p") with the job's steps under ASP: only the
// tables' rules hold reads back. Returns the sum each key ended with.
template <class B>
std::vector<double> run_engine(const std::string& engine, const std::string& tight_rule, TableProgram& program) {
  std::vector<double> sums;
  if (engine == "ps") {
    PsLayout l;
    l.workers = kWorkers;
    l.servers = 2;
    l.keys = 4;
    PsJobOptions o;
    o.barrier = Barrier(BarrierSpec::parse("asp"));
    o.tables = tables(tight_rule);
    o.timeout = 20s;
    const auto result = run_ps(ps_job(l, B::runtime_backend()), l, program.program(), o).value();
    for (const auto& v : result.values) sums.push_back(v[0]);
  } else {
    p2p::P2pLayout l;
    l.peers = kWorkers;
    l.keys = 4;
    p2p::P2pJobOptions o;
    o.barrier = Barrier(BarrierSpec::parse("asp"));
    o.tables = tables(tight_rule);
    o.timeout = 20s;
    const auto result = p2p::run_p2p(p2p::p2p_job(l, B::runtime_backend()), l, program.program(), o).value();
    for (const auto& v : result.values) sums.push_back(v[0]);
  }
  return sums;
}

}  // namespace

TEST_CASE_TEMPLATE("each table's reads follow its own rule: a BSP table's every read is current, an SSP(3) table's within 3 steps",
                   B, GYRE_TEST_BACKENDS) {
  for (const std::string engine : {"ps", "p2p"}) {
    CAPTURE(engine);
    TableProgram bsp{0};
    const auto sums = run_engine<B>(engine, "bsp", bsp);
    CHECK(sums == std::vector<double>(4, kWorkers * kSteps));
    CHECK(bsp.reads == kWorkers * kSteps * 4);
    CHECK(bsp.tight_violations == 0);
    CHECK(bsp.loose_violations == 0);
    // The loose table was read staler than the tight one may be: the rules differ in effect.
    CHECK(bsp.loose_stale > 0);
    TableProgram ssp1{1};
    run_engine<B>(engine, "ssp:1", ssp1);
    CHECK(ssp1.tight_violations == 0);
    CHECK(ssp1.loose_violations == 0);
  }
}

TEST_CASE_TEMPLATE("the check has teeth: the tight table under a rule that bounds nothing is read stale", B, GYRE_TEST_BACKENDS) {
  for (const std::string engine : {"ps", "p2p"}) {
    CAPTURE(engine);
    TableProgram unbounded{0};
    run_engine<B>(engine, "asp", unbounded);
    CHECK(unbounded.tight_violations > 0);
    CHECK(unbounded.loose_violations == 0);
  }
}

TEST_CASE("tables that are empty, reach past the keys or overlap are refused, naming them; a key in no table follows the job's rule") {
  const Barrier job(BarrierSpec::parse("asp"));
  const Barrier bsp(BarrierSpec::parse("bsp"));
  CHECK_THROWS_WITH_AS(TableRules(job, {Table{"empty", 0, 0, bsp}}, 10), doctest::Contains("\"empty\" holds no keys"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(TableRules(job, {Table{"long", 8, 3, bsp}}, 10), doctest::Contains("\"long\" (keys 8 … 10) reaches past"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(TableRules(job, {Table{"b", 4, 3, bsp}, Table{"a", 0, 5, bsp}}, 10),
                       doctest::Contains("\"b\" overlaps table \"a\""), std::invalid_argument);
  const TableRules rules(job, {Table{"w", 2, 3, Barrier(BarrierSpec::parse("ssp:2"))}, Table{"b", 7, 1, bsp}}, 10);
  CHECK(rules.any_global());
  CHECK(rules.needed(0, 5) == std::numeric_limits<std::int64_t>::min());  // the job's ASP bounds no read
  CHECK(rules.needed(2, 5) == 3);
  CHECK(rules.needed(4, 5) == 3);
  CHECK(rules.needed(5, 5) == std::numeric_limits<std::int64_t>::min());
  CHECK(rules.needed(7, 5) == 5);
  CHECK(rules.cache_bound(3, 5, 9) == 2);
  CHECK(rules.cache_bound(6, 5, 9) == 9);
  CHECK_FALSE(TableRules(job, {}, 10).any_global());
}
