// tests/lib/collective/communicator_test.cpp — ring collectives on every backend, and the shared inbox under them.
#include <doctest/doctest.h>

#include <cstdint>
#include <future>
#include <thread>
#include <vector>

#include "gyre/collective/communicator.hpp"
#include "lib/collective/on_ranks.hpp"
#include "lib/net/backends.hpp"

using namespace gyre;
using namespace std::chrono_literals;

using gyre_test::on_ranks;

TEST_CASE_TEMPLATE("allreduce sums every member's vector exactly, for any size and member count", B,
                   GYRE_TEST_BACKENDS) {
  for (int n : {1, 2, 3, 5}) {
    for (std::size_t count : {std::size_t{0}, std::size_t{1}, std::size_t{4}, std::size_t{1001}}) {
      CAPTURE(n);
      CAPTURE(count);
      on_ranks<B>(n, [&](collective::Communicator& comm, int r) {
        std::vector<std::int64_t> v(count);
        for (std::size_t i = 0; i < count; ++i) v[i] = static_cast<std::int64_t>(i * 7 + static_cast<std::size_t>(r) * 1000);
        comm.allreduce_sum(std::span<std::int64_t>(v));
        for (std::size_t i = 0; i < count; ++i) {
          const auto want = static_cast<std::int64_t>(n) * static_cast<std::int64_t>(i * 7) + 1000 * n * (n - 1) / 2;
          if (v[i] != want) FAIL("rank " << r << " element " << i << ": " << v[i] << " != " << want);
        }
      });
    }
  }
}

TEST_CASE_TEMPLATE("back-to-back collectives do not mix, and floating-point results agree bitwise", B,
                   GYRE_TEST_BACKENDS) {
  constexpr int n = 4;
  std::vector<std::vector<double>> results(n);
  on_ranks<B>(n, [&](collective::Communicator& comm, int r) {
    std::vector<double> acc(17, 0.0);
    for (int round = 0; round < 20; ++round) {
      std::vector<double> v(17);
      for (std::size_t i = 0; i < v.size(); ++i) v[i] = 0.1 * (r + 1) * static_cast<double>(i + round);
      if (r == round % n) std::this_thread::sleep_for(1ms);  // one member lags, others run ahead
      comm.allreduce_sum(std::span<double>(v));
      for (std::size_t i = 0; i < v.size(); ++i) acc[i] += v[i];
    }
    results[static_cast<std::size_t>(r)] = acc;
  });
  for (int r = 1; r < n; ++r) CHECK(results[static_cast<std::size_t>(r)] == results[0]);
  CHECK(results[0][1] == doctest::Approx(0.1 * 10 * (20 * 1 + 190)));
}

TEST_CASE_TEMPLATE("allgather concatenates in member order; broadcast copies the root's data", B, GYRE_TEST_BACKENDS) {
  constexpr int n = 3;
  on_ranks<B>(n, [&](collective::Communicator& comm, int r) {
    const std::vector<std::uint32_t> mine{static_cast<std::uint32_t>(r), static_cast<std::uint32_t>(10 * r)};
    std::vector<std::uint32_t> all(2 * n);
    comm.allgather(std::span<const std::uint32_t>(mine), std::span<std::uint32_t>(all));
    CHECK(all == std::vector<std::uint32_t>{0, 0, 1, 10, 2, 20});
    std::vector<float> data(5, static_cast<float>(r));
    comm.broadcast(std::span<float>(data), 2);
    CHECK(data == std::vector<float>(5, 2.0f));
  });
}

TEST_CASE_TEMPLATE("a collective waits alongside another consumer of the same inbox", B, GYRE_TEST_BACKENDS) {
  // Rank 1 sends plain messages and takes part in an allreduce; rank 0 reads both kinds
  // through one inbox from two threads, each taking only its own.
  auto groups = B::make(2);
  runtime::Mailbox inbox0(*groups[0]);
  runtime::Mailbox inbox1(*groups[1]);
  auto plain = [](const net::Message& m) { return m.type == 9; };
  auto reader = std::async(std::launch::async, [&] {
    std::vector<std::uint64_t> tags;
    for (int i = 0; i < 3; ++i) {
      auto m = inbox0.receive(plain, net::Clock::now() + 20s);
      REQUIRE(m);
      tags.push_back(m->tag);
    }
    return tags;
  });
  auto peer = std::async(std::launch::async, [&] {
    collective::Communicator comm(inbox1, {0, 1});
    for (std::uint64_t t = 0; t < 3; ++t) {
      net::Message m;
      m.type = 9;
      m.tag = t;
      groups[1]->send(0, std::move(m));
    }
    std::vector<std::int64_t> v{5};
    comm.allreduce_sum(std::span<std::int64_t>(v));
    return v[0];
  });
  collective::Communicator comm0(inbox0, {0, 1});
  std::vector<std::int64_t> v{7};
  comm0.allreduce_sum(std::span<std::int64_t>(v));
  CHECK(v[0] == 12);
  CHECK(peer.get() == 12);
  CHECK(reader.get() == std::vector<std::uint64_t>{0, 1, 2});
}

TEST_CASE("a collective whose peer never comes names the peer at the deadline") {
  auto groups = net::make_inproc_groups(2);
  runtime::Mailbox inbox(*groups[0]);
  collective::Communicator comm(inbox, {0, 1}, {std::chrono::milliseconds(100)});
  std::vector<std::int64_t> v{1, 2};
  CHECK_THROWS_WITH_AS(comm.allreduce_sum(std::span<std::int64_t>(v)), doctest::Contains("rank 1"), std::runtime_error);
}

TEST_CASE("a failure notice ends a collective's wait with the JobFailed it carries, and every later wait") {
  auto groups = net::make_inproc_groups(2);
  runtime::Mailbox inbox(*groups[0]);
  collective::Communicator comm(inbox, {0, 1}, {std::chrono::seconds(5)});
  groups[1]->send(0, runtime::failure_message(
                         runtime::JobFailed(1, runtime::FailureCause::kError, "job failed at rank 1")));
  std::vector<std::int64_t> v{1, 2};
  try {
    comm.allreduce_sum(std::span<std::int64_t>(v));
    FAIL("the allreduce ended normally");
  } catch (const runtime::JobFailed& e) {
    CHECK(e.rank() == 1);
    CHECK(std::string(e.what()) == "job failed at rank 1");
  }
  CHECK_THROWS_AS(inbox.receive([](const net::Message& m) { return m.type == 9; }, net::Clock::now() + 5s),
                  runtime::JobFailed);
}
