// gyre/net/listen.hpp — IP addresses and listening sockets, with errors that say which address (internal to lib/, not installed).
#pragma once

#include <utility>  // before Asio: Boost 1.74's awaitable.hpp uses std::exchange unincluded

#include <boost/asio.hpp>

#include <cstdint>
#include <string>

namespace gyre::net {

// `host` as an IP address (no name lookup); throws std::invalid_argument
// "CONTEXT: 'x' is not an IP address", where `context` says whose address it is.
boost::asio::ip::address ip_address(const std::string& host, const std::string& context);

// Opens, binds and listens on host:port (0 = any free port); throws std::runtime_error
// "cannot listen on HOST:PORT: REASON" (e.g. "Address already in use").
void listen_on(boost::asio::ip::tcp::acceptor& acceptor, const std::string& host, std::uint16_t port);

class TcpListener;
// `acceptor` (closed) takes a second descriptor of `listener`'s socket, for an event loop other
// than the listener's; closing it leaves the listener open. Throws std::runtime_error naming the
// listener's address if the system has no descriptor to give.
void listen_on(boost::asio::ip::tcp::acceptor& acceptor, const TcpListener& listener);

}  // namespace gyre::net
