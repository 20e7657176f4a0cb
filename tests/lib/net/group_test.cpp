// tests/lib/net/group_test.cpp — Group/Link semantics, written once and run on every backend.
#include <doctest/doctest.h>

#include <atomic>
#include <thread>

#include "lib/net/backends.hpp"

using namespace gyre::net;
using namespace std::chrono_literals;

namespace {
Message text(std::uint16_t type, std::uint64_t tag, std::size_t body_bytes = 0) {
  Message m;
  m.type = type;
  m.tag = tag;
  m.meta = {std::byte{1}, std::byte{2}};
  m.body = gyre::Buffer(body_bytes);
  return m;
}
}  // namespace

TEST_CASE_TEMPLATE("messages arrive in order per link with sender, type, tag, meta and body", B,
                   GYRE_TEST_BACKENDS) {
  auto groups = B::make(3);
  for (std::uint64_t i = 0; i < 50; ++i) groups[0]->send(2, text(7, i, 64));
  for (std::uint64_t i = 0; i < 50; ++i) {
    auto m = groups[2]->receive(Clock::now() + 5s);
    REQUIRE(m);
    CHECK(m->sender == 0);
    CHECK(m->type == 7);
    CHECK(m->tag == i);
    CHECK(m->meta.size() == 2);
    CHECK(m->body.size() == 64);
  }
}

TEST_CASE_TEMPLATE("receive returns nothing at the deadline", B, GYRE_TEST_BACKENDS) {
  auto groups = B::make(2);
  const auto start = Clock::now();
  CHECK_FALSE(groups[1]->receive(start + 50ms));
  CHECK(Clock::now() - start >= 50ms);
}

TEST_CASE_TEMPLATE("close wakes a blocked receiver on every rank with the reason", B, GYRE_TEST_BACKENDS) {
  auto groups = B::make(2);
  std::atomic<bool> woke{false};
  std::thread t([&] {
    try {
      groups[1]->receive(Clock::now() + 30s);
    } catch (const GroupClosed& e) {
      woke = std::string(e.what()).find("rank 0") != std::string::npos;  // tcp adds the address
    }
  });
  std::this_thread::sleep_for(20ms);
  groups[0]->close("rank 0 failed");
  t.join();
  CHECK(woke);
  CHECK_THROWS_AS(groups[0]->receive(Clock::now() + 1s), GroupClosed);
}

TEST_CASE_TEMPLATE("many senders to one receiver lose nothing", B, GYRE_TEST_BACKENDS) {
  constexpr int kSenders = 4, kEach = 500;
  auto groups = B::make(kSenders + 1);
  std::vector<std::thread> senders;
  for (int s = 0; s < kSenders; ++s)
    senders.emplace_back([&, s] {
      for (int i = 0; i < kEach; ++i) groups[static_cast<std::size_t>(s)]->send(kSenders, text(1, static_cast<std::uint64_t>(i)));
    });
  std::vector<std::uint64_t> next(kSenders, 0);
  for (int n = 0; n < kSenders * kEach; ++n) {
    auto m = groups[kSenders]->receive(Clock::now() + 10s);
    REQUIRE(m);
    CHECK(m->tag == next[static_cast<std::size_t>(m->sender)]++);
  }
  for (auto& t : senders) t.join();
  CHECK_THROWS_AS(groups[0]->link(kSenders + 1), std::out_of_range);
}
