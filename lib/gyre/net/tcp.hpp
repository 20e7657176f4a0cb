// gyre/net/tcp.hpp — the TCP backend: Asio, one io thread per group, authenticated length-prefixed frames.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "gyre/base/export.hpp"
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
  std::string job_id;  // at most 63 bytes; a peer of another job is refused
  // At most 63 bytes; a peer with another digest is refused like one of another job. Meant for
  // cluster::settings_digest of the job's settings, so that ranks started with different
  // settings can never form one group.
  std::string job_digest;
  // The shared secret. It never crosses the wire: each connection opens with a mutual
  // challenge-response in which both sides prove they hold it (fresh nonces, HMAC-SHA256).
  std::string token;
  wire::FrameLimits limits;
  std::chrono::milliseconds connect_timeout{std::chrono::seconds(30)};
  // An accepted connection must authenticate within this, or it is closed.
  std::chrono::milliseconds hello_timeout{std::chrono::seconds(10)};
  // Every connection sends a heartbeat each interval; a peer not heard from (no frame of any
  // kind) for heartbeat_timeout is declared dead, which closes the group naming it. Generous by
  // default because a frame only counts once it has fully arrived.
  std::chrono::milliseconds heartbeat_interval{std::chrono::seconds(1)};
  std::chrono::milliseconds heartbeat_timeout{std::chrono::seconds(30)};
  // Where refused connections, accept errors and dropped frames are reported; default: stderr.
  std::function<void(const std::string&)> log;
  // How messages name member r, when "rank r" would mislead (a job's scheduler is a member of
  // its own beside rank 0's worker); empty or short: "rank r".
  std::vector<std::string> member_names;
};

// names[member] if there is one, else "rank <member>".
GYRE_API std::string member_name(const std::vector<std::string>& names, int member);

// A rank's listening socket. It is opened before the peer table exists so that its port
// (0 = any free port) can be published to the other ranks.
class GYRE_API TcpListener {
 public:
  // Throws std::runtime_error "cannot listen on HOST:PORT: REASON" (e.g. the port is taken),
  // std::invalid_argument if `host` is not an IP address.
  TcpListener(const std::string& host, std::uint16_t port);
  ~TcpListener();
  TcpListener(TcpListener&&) noexcept;
  TcpListener& operator=(TcpListener&&) noexcept;
  TcpEndpoint endpoint() const;

  struct Impl;
  std::unique_ptr<Impl> impl;
};

// Joins the job: dials every lower rank, accepts every higher rank. Each connection opens with
// the mutual handshake (the dialer's hello with its rank, job id, job digest and a nonce; the
// acceptor's nonce and proof of the token; the dialer's proof), after which the acceptor checks
// the job id, digest and rank and answers with a welcome or, to an authenticated peer, a
// refusal with its reason. A connection that fails the handshake, speaks garbage or stays
// silent past hello_timeout is logged and closed, as is any beyond 64 waiting to authenticate
// at once; accept errors (e.g. out of file descriptors) pause accepting with back-off. The group
// keeps waiting for the real peer until connect_timeout, then throws SetupFailed naming the
// missing ranks; it gives up at once (SetupFailed naming it) if a rank it dials cannot prove it
// holds the token or refuses it.
// Once up: sends are queued per connection (one write in flight, header, meta and body as one
// scatter/gather write); a frame whose lengths exceed the limits or whose CRC fails drops that
// connection; a peer whose connection ends without a goodbye closes the group with an error
// naming its rank and address.
GYRE_API std::unique_ptr<Group> connect_tcp_group(TcpListener listener, const std::vector<TcpEndpoint>& peers,
                                                  const TcpOptions& options);

// All `size` ranks of a job in this process, over loopback tcp (ports chosen by the system):
// for tests and benchmarks that want the real wire without launching processes. Each rank
// gets `options` with its own rank filled in.
GYRE_API std::vector<std::unique_ptr<Group>> make_loopback_tcp_groups(int size, const TcpOptions& options);

}  // namespace gyre::net
