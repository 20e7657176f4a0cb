// gyre/cluster/rendezvous.hpp — how the ranks of a job learn each other's endpoints through rank 0.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "gyre/cluster/launch.hpp"
#include "gyre/net/tcp.hpp"

namespace gyre::cluster {

struct RendezvousOptions {
  std::string job_id;
  // The shared secret. It never crosses the wire: each connection opens with a mutual
  // challenge-response in which member and coordinator both prove they hold it.
  std::string token;
  std::chrono::milliseconds timeout{std::chrono::seconds(60)};
  // The job's settings (see launch.hpp). A member sends its own once authenticated; the
  // coordinator refuses a member whose settings differ from its own, telling it the first
  // difference, and keeps waiting for the real member.
  JobSettings settings;
  // An accepted connection must authenticate within this, or the coordinator closes it.
  std::chrono::milliseconds hello_timeout{std::chrono::seconds(10)};
  // Where the coordinator reports refused connections and accept errors; default: stderr.
  std::function<void(const std::string&)> log;
  // How messages name member r (net::member_name); default "rank r".
  std::vector<std::string> member_names;
};

// Rank 0's side. Members register (member id, listening port); the address recorded for a
// member is the one its registration came from, so a rank listening on 0.0.0.0 is published
// under the address that reaches it. Once all `members` have registered, every one of them
// gets the whole table. A connection that does not authenticate (wrong token, garbage,
// silence past the hello timeout, or over the limit of 64 connections waiting to
// authenticate) is logged and closed; an authenticated member of another job id, with a member
// id out of range or taken, or with other settings is told why ("rank 1's settings differ from
// rank 0's: ...": the coordinator speaks for rank 0, whose settings it holds) and logged. In
// every case the coordinator keeps waiting for the real member. Accept errors (e.g. out of file
// descriptors) pause accepting with back-off; they never end it.
class Coordinator {
 public:
  // Throws std::runtime_error "cannot listen on HOST:PORT: REASON" if it cannot listen.
  Coordinator(const net::TcpEndpoint& bind, int members, RendezvousOptions options);
  // The same on a socket the caller keeps listening across several rendezvous (a job's loading
  // and its training), so that nothing can take its port in between; the caller's stays open.
  // (The socket last, so that an endpoint written in braces picks the constructor above.)
  Coordinator(int members, RendezvousOptions options, const net::TcpListener& listening);
  ~Coordinator();
  net::TcpEndpoint endpoint() const;  // with the real port when bound to port 0
  // Blocks until every member has its table; throws net::SetupFailed naming the members that
  // did not register within the timeout (peer(): the first of them), and the refusals it made
  // meanwhile.
  void serve();

 private:
  Coordinator(int members, RendezvousOptions&& options);  // everything but the listening
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// A member's side: registers `port` as member `member` of `members` with the coordinator
// (retrying the connection until the timeout, since rank 0 may start last or be busy) and
// returns the table, indexed by member id. Throws net::SetupFailed at once if the
// coordinator cannot prove it holds the token ("the coordinator at HOST:PORT could not prove
// it holds the job token") or refuses this member (with the coordinator's reason), and after
// the timeout if no table came; std::invalid_argument if the coordinator's host is not an IP
// address or the settings are too large.
std::vector<net::TcpEndpoint> rendezvous(const net::TcpEndpoint& coordinator, int member, std::uint16_t port,
                                         int members, const RendezvousOptions& options);

}  // namespace gyre::cluster
