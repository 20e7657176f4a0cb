// tests/lib/net/backends.hpp — the transport backends every transport test body is instantiated for.
#pragma once

#include <memory>
#include <vector>

#include "gyre/net/inproc.hpp"

namespace gyre_test {

struct InprocBackend {
  static constexpr const char* kName = "inproc";
  static std::vector<std::unique_ptr<gyre::net::Group>> make(int size) { return gyre::net::make_inproc_groups(size); }
};

// Add the tcp backend here when it exists; every TEST_CASE_TEMPLATE over kBackends runs on it.
#define GYRE_TEST_BACKENDS gyre_test::InprocBackend

}  // namespace gyre_test
