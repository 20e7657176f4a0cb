// tests/lib/collective/delta_exchange_test.cpp — pushed changes on every backend: summed exactly once each, in order, checked before they are added.
#include <doctest/doctest.h>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <thread>
#include <vector>

#include "gyre/collective/delta_exchange.hpp"
#include "gyre/runtime/failure.hpp"
#include "lib/collective/on_ranks.hpp"
#include "lib/net/backends.hpp"

using namespace gyre;
using namespace std::chrono_literals;
using gyre_test::on_ranks;
using gyre_test::ranks;

TEST_CASE_TEMPLATE("every replica ends as the sum of every push, taken as they arrive and flushed", B, GYRE_TEST_BACKENDS) {
  for (int n : {1, 2, 4}) {
    CAPTURE(n);
    constexpr int kPushes = 25;
    constexpr std::size_t kSize = 7;
    std::vector<std::vector<std::int64_t>> replicas(static_cast<std::size_t>(n));
    on_ranks<B>(n, [&](collective::Communicator& comm, int r) {
      collective::DeltaExchange<std::int64_t> exchange(comm.inbox(), ranks(n), kSize, {20s, 0});
      std::vector<std::int64_t> replica(kSize, 0);
      const auto add = [&](std::span<const std::int64_t> change) {
        for (std::size_t i = 0; i < kSize; ++i) replica[i] += change[i];
      };
      std::size_t arrived = 0;
      for (int p = 0; p < kPushes; ++p) {
        std::vector<std::int64_t> change(kSize);
        for (std::size_t i = 0; i < kSize; ++i) change[i] = (r + 1) * 1000 + p * 10 + static_cast<std::int64_t>(i);
        for (std::size_t i = 0; i < kSize; ++i) replica[i] += change[i];  // own change, at once
        exchange.push(change);
        if (r == p % n) std::this_thread::sleep_for(1ms);  // one member lags, the others run ahead
        arrived += exchange.take_arrived(add);             // never waits
      }
      exchange.take_until(kPushes, add);
      CHECK(exchange.pushed() == kPushes);
      for (int i = 0; i < n; ++i) CHECK(exchange.taken_from(i) == (i == r ? 0u : std::uint64_t{kPushes}));
      CHECK(arrived <= static_cast<std::size_t>((n - 1) * kPushes));
      replicas[static_cast<std::size_t>(r)] = replica;
    });
    for (std::size_t i = 0; i < kSize; ++i) {
      std::int64_t want = 0;
      for (int r = 0; r < n; ++r)
        for (int p = 0; p < kPushes; ++p) want += (r + 1) * 1000 + p * 10 + static_cast<std::int64_t>(i);
      for (int r = 0; r < n; ++r) CHECK(replicas[static_cast<std::size_t>(r)][i] == want);
    }
  }
}

TEST_CASE_TEMPLATE("two streams in one inbox keep apart, and wrapping counts sum exactly", B, GYRE_TEST_BACKENDS) {
  on_ranks<B>(3, [&](collective::Communicator& comm, int r) {
    collective::DeltaExchange<std::uint32_t> counts(comm.inbox(), ranks(3), 2, {20s, 0});
    collective::DeltaExchange<double> residual(comm.inbox(), ranks(3), 1, {20s, 1});
    // A count moved down by one on rank 0 and up by one elsewhere: the change wraps below zero.
    const std::vector<std::uint32_t> change{r == 0 ? std::numeric_limits<std::uint32_t>::max() : 1u, 5u};
    counts.push(change);
    residual.push(std::vector<double>{0.5 * r});
    std::vector<std::uint32_t> sum = change;
    double total = 0.5 * r;
    residual.take_until(1, [&](std::span<const double> c) { total += c[0]; });
    counts.take_until(1, [&](std::span<const std::uint32_t> c) {
      for (std::size_t i = 0; i < 2; ++i) sum[i] += c[i];
    });
    CHECK(sum == std::vector<std::uint32_t>{1u, 15u});  // −1 + 1 + 1
    CHECK(total == 1.5);
  });
}

TEST_CASE_TEMPLATE("a change out of order, of the wrong size or not finite fails the job naming its sender", B,
                   GYRE_TEST_BACKENDS) {
  struct Bad {
    const char* name;
    std::uint64_t tag;
    std::size_t bytes;
    double value;
    const char* says;
  };
  for (const Bad& bad : {Bad{"skipped number", 1, 16, 1.0, "change number 1 where 0 was next"},
                         Bad{"short", 0, 8, 1.0, "8 bytes where a change is 16"},
                         Bad{"NaN", 0, 16, std::nan(""), "not finite"}}) {
    CAPTURE(bad.name);
    auto groups = B::make(2);
    runtime::Mailbox inbox0(*groups[0]);
    collective::DeltaExchange<double> exchange(inbox0, ranks(2), 2, {20s, 0});
    net::Message m;
    m.type = collective::kDeltaMessage;
    m.tag = bad.tag;
    m.body = Buffer(bad.bytes);
    for (std::size_t at = 0; at + sizeof(double) <= bad.bytes; at += sizeof(double))
      std::memcpy(m.body.data() + at, &bad.value, sizeof(double));
    groups[1]->send(0, std::move(m));
    try {
      exchange.take_until(1, [](std::span<const double>) { FAIL("a refused change was added"); });
      FAIL("no failure");
    } catch (const runtime::JobFailed& e) {
      CHECK(e.rank() == 1);
      CHECK(e.cause() == runtime::FailureCause::kBadMessage);
      CHECK(std::string(e.what()).find(bad.says) != std::string::npos);
    }
  }
}

TEST_CASE_TEMPLATE("a flush names the silent peer once its timeout passes", B, GYRE_TEST_BACKENDS) {
  auto groups = B::make(3);
  runtime::Mailbox inbox0(*groups[0]);
  runtime::Mailbox inbox2(*groups[2]);
  collective::DeltaExchange<double> exchange(inbox0, ranks(3), 1, {200ms, 0});
  collective::DeltaExchange<double> talker(inbox2, ranks(3), 1, {200ms, 0});
  talker.push(std::vector<double>{1.0});  // rank 2 pushes, rank 1 never does
  double total = 0;
  try {
    exchange.take_until(1, [&](std::span<const double> c) { total += c[0]; });
    FAIL("no failure");
  } catch (const runtime::JobFailed& e) {
    CHECK(e.rank() == 1);
    CHECK(e.cause() == runtime::FailureCause::kTimeout);
    CHECK(std::string(e.what()).find("pushed change from rank(s) 1") != std::string::npos);
  }
  CHECK(total == 1.0);
}
