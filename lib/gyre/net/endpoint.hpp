// gyre/net/endpoint.hpp — an endpoint written as text: HOST:PORT, checked, and what kind of address it is.
#pragma once

#include <string>

#include "gyre/net/tcp.hpp"

namespace gyre::net {

// "HOST:PORT" or "[IPv6]:PORT", HOST an IP address and PORT in 1..65535. Throws
// std::invalid_argument quoting `text`: "'h:70000': expected HOST:PORT with PORT in 1..65535",
// "'rank0:7700': 'rank0' is not an IP address".
TcpEndpoint parse_endpoint(const std::string& text);
bool is_ip_address(const std::string& host);
bool is_loopback_address(const std::string& host);

}  // namespace gyre::net
