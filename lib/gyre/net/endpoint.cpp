// gyre/net/endpoint.cpp — HOST:PORT parsed with Asio's address rules.
#include "gyre/net/endpoint.hpp"

#include <utility>  // before Asio: Boost 1.74 uses std::exchange without including it

#include <boost/asio/ip/address.hpp>

#include <charconv>
#include <stdexcept>

namespace gyre::net {

bool is_ip_address(const std::string& host) {
  boost::system::error_code ec;
  (void)boost::asio::ip::make_address(host, ec);
  return !ec;
}

bool is_loopback_address(const std::string& host) {
  boost::system::error_code ec;
  const auto address = boost::asio::ip::make_address(host, ec);
  return !ec && address.is_loopback();
}

TcpEndpoint parse_endpoint(const std::string& text) {
  const auto colon = text.rfind(':');
  const auto refuse = [&](const std::string& why) { return std::invalid_argument("'" + text + "': " + why); };
  const char* expected = "expected HOST:PORT with PORT in 1..65535";
  if (colon == std::string::npos) throw refuse(expected);
  TcpEndpoint out;
  out.host = text.substr(0, colon);
  if (out.host.size() > 2 && out.host.front() == '[' && out.host.back() == ']')  // [IPv6]:PORT
    out.host = out.host.substr(1, out.host.size() - 2);
  const char* first = text.data() + colon + 1;
  const char* last = text.data() + text.size();
  unsigned port = 0;
  const auto [end, ec] = std::from_chars(first, last, port);
  if (ec != std::errc() || end != last || first == last || port < 1 || port > 65535) throw refuse(expected);
  out.port = static_cast<std::uint16_t>(port);
  if (!is_ip_address(out.host)) throw refuse("'" + out.host + "' is not an IP address");
  return out;
}

}  // namespace gyre::net
