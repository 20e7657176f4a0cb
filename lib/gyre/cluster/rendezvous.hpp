// gyre/cluster/rendezvous.hpp — how the ranks of a job learn each other's endpoints through rank 0.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "gyre/net/tcp.hpp"

namespace gyre::cluster {

struct RendezvousOptions {
  std::string job_id;
  std::string token;  // every registration must carry it (compared in constant time)
  std::chrono::milliseconds timeout{std::chrono::seconds(60)};
};

// Rank 0's side. Members register (member id, listening port); the address recorded for a
// member is the one its registration came from, so a rank listening on 0.0.0.0 is published
// under the address that reaches it. Once all `members` have registered, every one of them
// gets the whole table. A registration with the wrong token, job or member id, or garbage,
// is logged and dropped; the coordinator keeps waiting for the real member.
class Coordinator {
 public:
  Coordinator(const net::TcpEndpoint& bind, int members, RendezvousOptions options);
  ~Coordinator();
  net::TcpEndpoint endpoint() const;  // with the real port when bound to port 0
  // Blocks until every member has its table; throws std::runtime_error naming the members
  // that did not register within the timeout.
  void serve();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// A member's side: registers `port` as member `member` of `members` with the coordinator
// (retrying the connection until the timeout, since rank 0 may start last) and returns the
// table, indexed by member id.
std::vector<net::TcpEndpoint> rendezvous(const net::TcpEndpoint& coordinator, int member, std::uint16_t port,
                                         int members, const RendezvousOptions& options);

}  // namespace gyre::cluster
