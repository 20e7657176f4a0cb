// tests/lib/net/backends.hpp — the transport backends every transport test body is instantiated for.
#pragma once

#include <memory>
#include <vector>

#include "gyre/net/inproc.hpp"
#include "gyre/net/tcp.hpp"
#include "gyre/runtime/job.hpp"

namespace gyre_test {

struct InprocBackend {
  static constexpr const char* kName = "inproc";
  static std::vector<std::unique_ptr<gyre::net::Group>> make(int size) { return gyre::net::make_inproc_groups(size); }
  static gyre::runtime::Backend runtime_backend() { return gyre::runtime::ThreadsBackend{}; }
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
    return gyre::net::make_loopback_tcp_groups(size, options(0));
  }
  static gyre::runtime::Backend runtime_backend() { return gyre::runtime::LoopbackBackend{options(0)}; }
};

#define GYRE_TEST_BACKENDS gyre_test::InprocBackend, gyre_test::TcpBackend

}  // namespace gyre_test
