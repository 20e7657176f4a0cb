// gyre/net/group.hpp — the transport interface: the Message it carries, a Group of ranks joined pairwise by Links,
// and the Group decorator that injects delays and cut links (FaultSpec).
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "gyre/base/buffer.hpp"
#include "gyre/base/export.hpp"
#include "gyre/base/random.hpp"

namespace gyre::net {

// The unit the transport carries: a small typed header, metadata and a body.

// The transport does not interpret `type` or `tag`; the layers above own their meaning.
// `meta` holds a small encoded record (cereal, bounded); `body` the bulk payload, which moves
// through the inproc backend without a copy and goes out as a separate buffer over tcp.
struct Message {
  std::uint16_t type = 0;
  std::int32_t sender = -1;  // filled in by the transport
  std::uint64_t tag = 0;
  std::vector<std::byte> meta;
  Buffer body;
};

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

// A Group decorator that delays messages and can cut links, for tests and benchmarks.

struct GYRE_API FaultSpec {
  enum class Delay { kNone, kFixed, kUniform, kGamma };
  Delay delay = Delay::kNone;
  double a = 0;  // fixed: milliseconds; uniform: lowest ms; gamma: shape
  double b = 0;  // uniform: highest ms; gamma: scale in ms
  std::uint64_t close_after = 0;  // fail the group after this many sent messages (0: never)
  std::uint64_t seed = 1;

  // Every number of a spec is finite and at most an hour: a larger one is a typo, not a test.
  static constexpr double kMaxMilliseconds = 3'600'000;
  // "none", "fixed:MS", "uniform:LO:HI" or "gamma:SHAPE:SCALE"; throws std::invalid_argument.
  static FaultSpec parse_delay(const std::string& text);
  bool active() const { return delay != Delay::kNone || close_after > 0; }
  // One delay of this law, in milliseconds, from `random` (the same numbers on every platform).
  double draw_ms(Random& random) const;
};

// Messages to other ranks leave after a delay drawn per message (order per link is kept: a
// message never overtakes an earlier one on its link); messages to itself are not delayed.
// With close_after = N, the N+1-th send closes the inner group, which its peers see as this
// rank failing. Receiving is untouched.
GYRE_API std::unique_ptr<Group> with_faults(std::unique_ptr<Group> inner, const FaultSpec& spec);

}  // namespace gyre::net
