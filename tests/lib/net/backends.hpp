// tests/lib/net/backends.hpp — the transport backends every transport test body is instantiated for.
#pragma once

#include <future>
#include <memory>
#include <vector>

#include "gyre/net/inproc.hpp"
#include "gyre/net/tcp.hpp"

namespace gyre_test {

struct InprocBackend {
  static constexpr const char* kName = "inproc";
  static std::vector<std::unique_ptr<gyre::net::Group>> make(int size) { return gyre::net::make_inproc_groups(size); }
};

// n ranks on loopback, each with its own listener on port 0 and its own io thread.
struct TcpBackend {
  static constexpr const char* kName = "tcp";
  static gyre::net::TcpOptions options(int rank) {
    gyre::net::TcpOptions o;
    o.rank = rank;
    o.job_id = "test-job";
    o.token = "test-token";
    o.connect_timeout = std::chrono::seconds(20);
    o.log = [](const std::string&) {};
    return o;
  }
  static std::vector<std::unique_ptr<gyre::net::Group>> make(int size) {
    std::vector<gyre::net::TcpListener> listeners;
    std::vector<gyre::net::TcpEndpoint> endpoints;
    for (int r = 0; r < size; ++r) {
      listeners.emplace_back("127.0.0.1", 0);
      endpoints.push_back(listeners.back().endpoint());
    }
    std::vector<std::future<std::unique_ptr<gyre::net::Group>>> joining;
    for (int r = 0; r < size; ++r)
      joining.push_back(std::async(std::launch::async, [&, r, l = std::move(listeners[static_cast<std::size_t>(r)])]() mutable {
        return gyre::net::connect_tcp_group(std::move(l), endpoints, options(r));
      }));
    std::vector<std::unique_ptr<gyre::net::Group>> groups;
    for (auto& j : joining) groups.push_back(j.get());
    return groups;
  }
};

#define GYRE_TEST_BACKENDS gyre_test::InprocBackend, gyre_test::TcpBackend

}  // namespace gyre_test
