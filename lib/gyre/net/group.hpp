// gyre/net/group.hpp — the transport interface: a Group of ranks joined pairwise by Links.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>

#include "gyre/base/export.hpp"
#include "gyre/net/message.hpp"

namespace gyre::net {

using Clock = std::chrono::steady_clock;

// Raised by receive() once the group is closed or a peer has failed; the message names the
// cause, and peer() the failed peer's rank when a peer's failure closed it (else -1: this
// member closed it, or it never connected).
class GYRE_API GroupClosed : public std::runtime_error {
 public:
  explicit GroupClosed(const std::string& reason, int peer = -1) : std::runtime_error(reason), peer_(peer) {}
  int peer() const noexcept { return peer_; }

 private:
  int peer_;
};

// Raised while a group forms, when it cannot: a member never joined (peer(): the first one
// missing), a member was refused or refused this one (peer(): that member; a token it could not
// prove, another job or configuration, a rank given twice), or the coordinator could not be
// reached or answered with a refusal (-1: its text names who is missing).
class GYRE_API SetupFailed : public GroupClosed {
 public:
  using GroupClosed::GroupClosed;
};

// One direction of a connection to one peer. Sends never block on the receiver (messages are
// queued), and preserve order per link.
class GYRE_API Link {
 public:
  virtual ~Link() = default;
  virtual int peer() const noexcept = 0;
  virtual void send(Message message) = 0;
};

// This rank's view of a job's transport: a Link to every rank (itself included, for
// uniformity) and one inbox for everything addressed to this rank.
class GYRE_API Group {
 public:
  virtual ~Group() = default;
  virtual int rank() const noexcept = 0;
  virtual int size() const noexcept = 0;
  virtual Link& link(int peer) = 0;
  // Next message, or nullopt once `deadline` passes. Throws GroupClosed after close().
  virtual std::optional<Message> receive(Clock::time_point deadline) = 0;
  // Wakes every receiver of this rank with GroupClosed; idempotent.
  virtual void close(const std::string& reason) = 0;
  // The same for this rank's receivers, while its links stay up until the group ends, so that
  // what it sent last (a cancel's notices) reaches the other processes ahead of any closed
  // connection. Backends without connections close().
  virtual void close_receivers(const std::string& reason) { close(reason); }
  // Bytes this rank has put on the wire so far (frames and transport overhead included);
  // 0 for backends without a wire.
  virtual std::uint64_t bytes_sent() const noexcept { return 0; }

  void send(int peer, Message message) { link(peer).send(std::move(message)); }
};

}  // namespace gyre::net
