// gyre/net/descriptors.hpp — opening what needs file descriptors while a flood of connections may hold them all (internal to lib/, not installed).
#pragma once

#include <boost/system/system_error.hpp>

#include <algorithm>
#include <chrono>
#include <thread>

namespace gyre::net {

// Runs `open` (an io_context's reactor, a listener: anything that takes descriptors) until it
// stops failing for want of descriptors, pausing 10 ms, doubling up to 1 s, between tries, and
// returns what it returns. A flood of connections to this process's coordinator port can hold
// every descriptor for a while (its accept loop backs off until the flood goes): a member
// forming the job then waits, as it waits for peers that start late, instead of failing. Any
// other error, and that one past `deadline`, is thrown.
template <class Open>
auto when_descriptors_free(Open open, std::chrono::steady_clock::time_point deadline) -> decltype(open()) {
  for (auto pause = std::chrono::milliseconds(10);; pause = std::min(pause * 2, std::chrono::milliseconds(1000))) {
    try {
      return open();
    } catch (const boost::system::system_error& e) {
      const bool out_of_descriptors = e.code() == boost::system::errc::too_many_files_open ||
                                      e.code() == boost::system::errc::too_many_files_open_in_system;
      if (!out_of_descriptors || std::chrono::steady_clock::now() + pause > deadline) throw;
      std::this_thread::sleep_for(pause);
    }
  }
}

}  // namespace gyre::net
