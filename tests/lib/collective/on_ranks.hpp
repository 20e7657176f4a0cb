// tests/lib/collective/on_ranks.hpp — runs a collective test body on every rank of a fresh group, one thread each.
#pragma once

#include <chrono>
#include <future>
#include <numeric>
#include <type_traits>
#include <vector>

#include "gyre/collective/communicator.hpp"
#include "gyre/runtime/mailbox.hpp"

namespace gyre_test {

inline std::vector<int> ranks(int n) {
  std::vector<int> r(static_cast<std::size_t>(n));
  std::iota(r.begin(), r.end(), 0);
  return r;
}

// Runs body(communicator, rank) — or body(communicator, rank, group) — on n threads, one per
// rank of a fresh group of the backend; a member that waits for a silent peer throws after 20 s.
template <class Backend, class Body>
void on_ranks(int n, Body body) {
  auto groups = Backend::make(n);
  std::vector<std::future<void>> running;
  for (int r = 0; r < n; ++r)
    running.push_back(std::async(std::launch::async, [&, r] {
      auto& group = *groups[static_cast<std::size_t>(r)];
      gyre::runtime::Mailbox inbox(group);
      gyre::collective::Communicator comm(inbox, ranks(n), {std::chrono::milliseconds(20000)});
      if constexpr (std::is_invocable_v<Body&, gyre::collective::Communicator&, int, gyre::net::Group&>)
        body(comm, r, group);
      else
        body(comm, r);
    }));
  for (auto& f : running) f.get();
}

}  // namespace gyre_test
