// gyre/net/tcp.hpp — the TCP backend: Asio, one io thread per group, authenticated length-prefixed frames.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "gyre/net/group.hpp"
#include "gyre/wire/frame.hpp"

namespace gyre::net {

struct TcpEndpoint {
  std::string host;
  std::uint16_t port = 0;
  std::string str() const { return host + ":" + std::to_string(port); }
};

struct TcpOptions {
  int rank = 0;
  std::string job_id;  // a peer of another job is refused
  std::string token;   // shared secret every connection must present (compared in constant time)
  wire::FrameLimits limits;
  std::chrono::milliseconds connect_timeout{std::chrono::seconds(30)};
  // Every connection sends a heartbeat each interval; a peer not heard from (no frame of any
  // kind) for heartbeat_timeout is declared dead, which closes the group naming it. Generous by
  // default because a frame only counts once it has fully arrived.
  std::chrono::milliseconds heartbeat_interval{std::chrono::seconds(1)};
  std::chrono::milliseconds heartbeat_timeout{std::chrono::seconds(30)};
  // Where refused connections and dropped frames are reported; default: stderr.
  std::function<void(const std::string&)> log;
};

// A rank's listening socket. It is opened before the peer table exists so that its port
// (0 = any free port) can be published to the other ranks.
class TcpListener {
 public:
  TcpListener(const std::string& host, std::uint16_t port);
  ~TcpListener();
  TcpListener(TcpListener&&) noexcept;
  TcpListener& operator=(TcpListener&&) noexcept;
  TcpEndpoint endpoint() const;

  struct Impl;
  std::unique_ptr<Impl> impl;
};

// Joins the job: dials every lower rank, accepts every higher rank, each connection opened
// by a hello (protocol version, job id, rank, token) that the acceptor checks and answers.
// A connection that fails the check, or speaks garbage, is logged and dropped; the group keeps
// waiting for the real peer until connect_timeout, then throws naming the missing ranks.
// Once up: sends are queued per connection (one write in flight, header, meta and body as one
// scatter/gather write); a frame whose lengths exceed the limits or whose CRC fails drops that
// connection; a peer whose connection ends without a goodbye closes the group with an error
// naming its rank and address.
std::unique_ptr<Group> connect_tcp_group(TcpListener listener, const std::vector<TcpEndpoint>& peers,
                                         const TcpOptions& options);

// All `size` ranks of a job in this process, over loopback tcp (ports chosen by the system):
// for tests and benchmarks that want the real wire without launching processes. Each rank
// gets `options` with its own rank filled in.
std::vector<std::unique_ptr<Group>> make_loopback_tcp_groups(int size, const TcpOptions& options);

}  // namespace gyre::net
