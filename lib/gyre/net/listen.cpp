// gyre/net/listen.cpp — address parsing and listening sockets with messages that name the address.
#include "gyre/net/listen.hpp"

#include <stdexcept>

namespace gyre::net {

boost::asio::ip::address ip_address(const std::string& host, const std::string& context) {
  boost::system::error_code ec;
  auto address = boost::asio::ip::make_address(host, ec);
  if (ec) throw std::invalid_argument(context + ": '" + host + "' is not an IP address");
  return address;
}

void listen_on(boost::asio::ip::tcp::acceptor& acceptor, const std::string& host, std::uint16_t port) {
  const std::string where = "cannot listen on " + host + ":" + std::to_string(port);
  const boost::asio::ip::tcp::endpoint endpoint(ip_address(host, where), port);
  boost::system::error_code ec;
  // The first step that fails names the reason; the later ones are skipped.
  acceptor.open(endpoint.protocol(), ec);
  if (!ec) acceptor.set_option(boost::asio::ip::tcp::acceptor::reuse_address(true), ec);
  if (!ec) acceptor.bind(endpoint, ec);
  if (!ec) acceptor.listen(boost::asio::socket_base::max_listen_connections, ec);
  if (ec) {
    boost::system::error_code ignored;
    acceptor.close(ignored);
    throw std::runtime_error(where + ": " + ec.message());
  }
}

}  // namespace gyre::net
