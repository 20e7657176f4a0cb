// tests/support/raw_socket.hpp — plain Asio sockets for tests that play a silent, flooding or fake peer by hand.
#pragma once

#include <utility>  // before Asio: Boost 1.74 uses std::exchange without including it

#include <boost/asio.hpp>

#include <array>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

namespace gyre::test {

// A blocking connection to 127.0.0.1:port (the kernel completes it even before the server accepts).
inline std::unique_ptr<boost::asio::ip::tcp::socket> connect_loopback(boost::asio::io_context& io, std::uint16_t port) {
  auto s = std::make_unique<boost::asio::ip::tcp::socket>(io);
  s->connect({boost::asio::ip::make_address("127.0.0.1"), port});
  return s;
}

// Runs `io` until the peer ends the connection on `s` (EOF or reset) or `within` passes; says
// which. Whatever the peer sends meanwhile is read and dropped.
inline bool closed_within(boost::asio::io_context& io, boost::asio::ip::tcp::socket& s,
                          std::chrono::milliseconds within) {
  bool closed = false;
  auto buffer = std::make_shared<std::array<char, 512>>();
  std::function<void()> read = [&] {
    s.async_read_some(boost::asio::buffer(*buffer), [&, buffer](boost::system::error_code ec, std::size_t) {
      if (ec == boost::asio::error::operation_aborted) return;
      if (ec) {
        closed = true;
        io.stop();
        return;
      }
      read();
    });
  };
  read();
  io.restart();
  io.run_for(within);
  if (!closed) {
    // Leave no read pending on a socket the caller still owns.
    s.cancel();
    io.restart();
    io.poll();
  }
  io.restart();
  return closed;
}

}  // namespace gyre::test
