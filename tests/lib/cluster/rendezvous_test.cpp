// tests/lib/cluster/rendezvous_test.cpp — members learn each other's endpoints through the coordinator.
#include <doctest/doctest.h>

#include <future>
#include <stdexcept>
#include <thread>

#include "gyre/cluster/rendezvous.hpp"

using namespace gyre::cluster;
using namespace std::chrono_literals;

namespace {
RendezvousOptions options() {
  RendezvousOptions o;
  o.job_id = "job";
  o.token = "secret";
  o.timeout = 10s;
  return o;
}
}  // namespace

TEST_CASE("every member gets the same table, with the address its registration came from") {
  constexpr int kMembers = 4;
  Coordinator coordinator({"127.0.0.1", 0}, kMembers, options());
  const auto at = coordinator.endpoint();
  auto served = std::async(std::launch::async, [&] { coordinator.serve(); });
  std::vector<std::future<std::vector<gyre::net::TcpEndpoint>>> members;
  for (int m = kMembers - 1; m >= 0; --m)  // any order
    members.push_back(std::async(std::launch::async, [&, m] {
      return rendezvous(at, m, static_cast<std::uint16_t>(5000 + m), kMembers, options());
    }));
  for (auto& f : members) {
    const auto table = f.get();
    REQUIRE(table.size() == kMembers);
    for (int m = 0; m < kMembers; ++m) {
      CHECK(table[static_cast<std::size_t>(m)].host == "127.0.0.1");
      CHECK(table[static_cast<std::size_t>(m)].port == 5000 + m);
    }
  }
  served.get();
}

TEST_CASE("a registration with the wrong token is refused; the real member still gets in") {
  Coordinator coordinator({"127.0.0.1", 0}, 1, options());
  const auto at = coordinator.endpoint();
  auto served = std::async(std::launch::async, [&] { coordinator.serve(); });
  auto bad = options();
  bad.token = "guess";
  bad.timeout = 3s;
  CHECK_THROWS_AS(rendezvous(at, 0, 1, 1, bad), std::runtime_error);
  CHECK(rendezvous(at, 0, 7, 1, options()).at(0).port == 7);
  served.get();
}

TEST_CASE("a member that never registers is named by the coordinator") {
  auto o = options();
  o.timeout = 300ms;
  Coordinator coordinator({"127.0.0.1", 0}, 2, o);
  const auto at = coordinator.endpoint();
  auto member0 = std::async(std::launch::async, [&] {
    try {
      rendezvous(at, 0, 1, 2, o);
    } catch (const std::runtime_error&) {
    }
  });
  CHECK_THROWS_WITH_AS(coordinator.serve(), doctest::Contains("member(s) 1"), std::runtime_error);
  member0.get();
}
