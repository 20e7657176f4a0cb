// tests/lib/ps/ps_wire_test.cpp — parameter-server messages with keys or lengths outside the layout, from a hostile worker or server.
#include <doctest/doctest.h>

#include <future>
#include <thread>

#include "gyre/ps/ps_messages.hpp"
#include "gyre/ps/ps_server.hpp"
#include "gyre/ps/ps_worker.hpp"
#include "gyre/rotation/rotation_driver.hpp"
#include "lib/net/backends.hpp"
#include "support/job_failure.hpp"

using namespace gyre;
using namespace gyre::ps;
using namespace std::chrono_literals;

namespace {

// Workers 0 and 1, servers 0 and 1 (ranks 2 and 3) over keys 0 … 9 of 3 doubles: server 0
// holds keys 0 … 4.
PsLayout two_by_two() {
  PsLayout l;
  l.workers = 2;
  l.servers = 2;
  l.keys = 10;
  l.value_size = 3;
  return l;
}

// Server 0 runs for real; rank 0 sends it `bad`. Returns the server's error; checks that the
// other worker was told, naming rank 0.
template <class B>
std::string server_refuses(net::Message bad) {
  auto groups = B::make(4);
  auto server = std::async(std::launch::async, [&] {
    runtime::Mailbox inbox(*groups[2]);
    PsServer s(inbox, two_by_two(), 0, {10s, {}, {}});
    return gyre::test::job_failure([&] { s.run(); });
  });
  groups[0]->send(2, std::move(bad));
  const std::string what = server.get();
  auto told = groups[1]->receive(net::Clock::now() + 5s);
  REQUIRE(told);
  CHECK(runtime::is_failure_notice(*told));
  CHECK(std::string(runtime::read_failure(*told).what()).find("from rank 0") != std::string::npos);
  return what;
}

net::Message push(const KeyValues& kv, std::uint16_t type = ps::kPush) {
  net::Message m;
  m.type = type;
  m.body = encode_key_values(kv, 0);
  return m;
}

}  // namespace

TEST_CASE_TEMPLATE("a server refuses keys outside the layout or held elsewhere, and values of another length", B,
                   GYRE_TEST_BACKENDS) {
  SUBCASE("a key beyond the last") {
    const auto what = server_refuses<B>(push({{1, {1, 2, 3}}, {99, {1, 2, 3}}}));
    CHECK_MESSAGE(what.find("from rank 0: key 99 is outside 0 … 9") != std::string::npos, what);
  }
  SUBCASE("a key of the other server") {
    const auto what = server_refuses<B>(push({{7, {1, 2, 3}}}, ps::kSet));
    CHECK_MESSAGE(what.find("from rank 0: key 7 is held by server 1, not server 0") != std::string::npos, what);
  }
  SUBCASE("a value of another length") {
    const auto what = server_refuses<B>(push({{4, {1, 2}}}));
    CHECK_MESSAGE(what.find("from rank 0: 2 doubles for key 4, which holds 3") != std::string::npos, what);
  }
  SUBCASE("a read of a key beyond the last") {
    net::Message get;
    get.type = ps::kGet;
    const std::vector<Key> keys{0, 1ull << 40};
    get.body = encode_keys(keys, 0);
    const auto what = server_refuses<B>(std::move(get));
    CHECK_MESSAGE(what.find("from rank 0: key 1099511627776 is outside 0 … 9") != std::string::npos, what);
  }
}

TEST_CASE_TEMPLATE("a worker refuses a reply with keys it did not ask for, and a key list beyond the layout", B,
                   GYRE_TEST_BACKENDS) {
  // Worker 0 and a fake server (rank 1) over keys 0 … 3 of 2 doubles.
  PsLayout l;
  l.workers = 1;
  l.servers = 1;
  l.keys = 4;
  l.value_size = 2;
  auto groups = B::make(2);
  runtime::Mailbox inbox(*groups[0]);
  PsWorker worker(inbox, l, ps::BarrierSpec::parse("asp"), {5s, 1, 0, {}});
  // The fake server answers the next request of `type` with `body`.
  auto answer = [&](std::uint16_t asked, std::uint16_t type, Buffer body) {
    return std::async(std::launch::async, [&groups, asked, type, body = std::move(body)]() mutable {
      for (;;) {
        auto m = groups[1]->receive(net::Clock::now() + 5s);
        REQUIRE(m);
        if (m->type != asked) continue;
        net::Message reply;
        reply.type = type;
        reply.tag = m->tag;
        reply.body = std::move(body);
        groups[1]->send(0, std::move(reply));
        return;
      }
    });
  };
  SUBCASE("a value for another key than the one asked") {
    auto server = answer(ps::kGet, ps::kGetReply, encode_key_values({{2, {1, 2}}}, 0));
    CHECK_THROWS_WITH_AS(worker.get(1), "parameter server: rank 1 answered a bad value for key 2", std::runtime_error);
    server.get();
  }
  SUBCASE("a value of another length") {
    auto server = answer(ps::kGet, ps::kGetReply, encode_key_values({{1, {1, 2, 3}}}, 0));
    CHECK_THROWS_WITH_AS(worker.get(1), "parameter server: rank 1 answered a bad value for key 1", std::runtime_error);
    server.get();
  }
  SUBCASE("a key list beyond the layout") {
    const std::vector<Key> listed{0, 9};
    auto server = answer(ps::kKeys, ps::kKeysReply, encode_keys(listed, 0));
    CHECK_THROWS_WITH_AS(worker.keys(), "parameter server: rank 1 listed its keys wrongly: key 9 is outside 0 … 3",
                         std::runtime_error);
    server.get();
  }
}

TEST_CASE("stop reports round-trip; a report of another field count is refused") {
  net::Message m;
  m.type = ps::kStop;
  m.body = encode_report({7, std::chrono::nanoseconds(123), 4, 5, 6});
  const auto r = decode_report(m);
  CHECK(r.steps == 7);
  CHECK(r.held == std::chrono::nanoseconds(123));
  CHECK(r.reads == 4);
  CHECK(r.cache_hits == 5);
  CHECK(r.barrier_queries == 6);
  const std::vector<Key> four{1, 2, 3, 4};
  m.body = encode_keys(four, 0);
  CHECK_THROWS_WITH_AS(decode_report(m), "a stop carries 5 counters, not 4", std::runtime_error);
}
