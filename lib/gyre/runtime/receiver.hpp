// gyre/runtime/receiver.hpp — one engine member's waits: a message its plan expects within a deadline, or the job's failure.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "gyre/net/group.hpp"
#include "gyre/runtime/failure.hpp"
#include "gyre/runtime/mailbox.hpp"

namespace gyre::runtime {

// Who did not send what a receiver waited for: `blamed` is the failure's rank, `what` completes
// "no <what> within N ms" ("report of phase 3 from rank(s) 1,2").
struct Silence {
  int blamed;
  std::string what;
};

// The silence of those of `ranks` that still owe `what` (owes(i), by index): "<what> from
// rank(s) 1,2", the first of them blamed.
template <class Owes>
Silence silence_of(std::string what, const std::vector<int>& ranks, Owes owes) {
  Silence s{-1, std::move(what) + " from rank(s) "};
  bool first = true;
  for (std::size_t i = 0; i < ranks.size(); ++i)
    if (owes(i)) {
      s.what += (first ? "" : ",") + std::to_string(ranks[i]);
      if (first) s.blamed = ranks[i];
      first = false;
    }
  return s;
}
// The same when every one of `ranks` owes it.
inline Silence silence_of(std::string what, const std::vector<int>& ranks) {
  return silence_of(std::move(what), ranks, [](std::size_t) { return true; });
}

// Every engine member waits the same way: for a message of the channels its plan expects, until
// a deadline. Whatever ends the wait otherwise becomes the job's failure, the same on every
// member: another member's failure notice as it came, a closed transport as kPeerLost blamed on
// the peer whose loss closed it, silence as kTimeout naming who owes the message.
class Receiver {
 public:
  // Whether the members this receiver steers wait on it (a driver, a server): a hub passes
  // another member's failure notice on to them, so that none waits out its own deadline on a
  // job that is over.
  enum class Role : bool { kMember, kHub };

  // `who` names the receiver in its failures ("scheduler", "worker 3"); `tell` are the members
  // told of a failure it finds (silence, a closed transport, fail()) before it throws.
  Receiver(Mailbox& mailbox, std::string who, std::chrono::milliseconds timeout, std::vector<int> tell = {},
           Role role = Role::kMember)
           : mailbox_(mailbox), who_(std::move(who)), timeout_(timeout), tell_(std::move(tell)), role_(role) {}

  // The oldest message `accept` takes, within the timeout (or until `deadline`); else throws
  // JobFailed as above, `silent()` saying who owes it.
  net::Message receive(const Mailbox::Accept& accept, const std::function<Silence()>& silent) const;
  net::Message receive(const Mailbox::Accept& accept, const std::function<Silence()>& silent,
                       net::Clock::time_point deadline) const;
  // The same without the time-out: nullopt once `deadline` passes (a member that does work of
  // its own between waits, or answers silence itself).
  std::optional<net::Message> receive_until(const Mailbox::Accept& accept, net::Clock::time_point deadline) const;
  // The oldest message `accept` takes of those already here, without waiting.
  std::optional<net::Message> receive_arrived(const Mailbox::Accept& accept) const;

  // Ends the job with `failure`: `tell` hears of it, then it is thrown.
  [[noreturn]] void fail(const JobFailed& failure) const;
  // The same for a failure of this receiver's finding, its text prefixed with who().
  [[noreturn]] void fail(int rank, FailureCause cause, const std::string& why) const;

  const std::string& who() const noexcept { return who_; }
  net::Group& group() const noexcept { return mailbox_.group(); }

 private:
  template <class Receive>
  auto guarded(Receive&& receive) const -> decltype(receive());

  Mailbox& mailbox_;
  std::string who_;
  std::chrono::milliseconds timeout_;
  std::vector<int> tell_;
  Role role_;
};

// The failure a closed transport means: kPeerLost, blamed on the peer whose loss closed it.
JobFailed peer_lost(const net::GroupClosed& closed, const std::string& who);

}  // namespace gyre::runtime
