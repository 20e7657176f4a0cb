// gyre/ps/p2p_owner.hpp — a peer's part of the model: folds in every push to its keys once, answers reads, on a thread of its own.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <map>
#include <mutex>
#include <span>
#include <thread>
#include <utility>
#include <vector>

#include "gyre/net/group.hpp"
#include "gyre/ps/clocked_store.hpp"
#include "gyre/ps/p2p_protocol.hpp"
#include "gyre/ps/ps_server.hpp"
#include "gyre/runtime/mailbox.hpp"

namespace gyre::ps::p2p {


// Every peer owns the keys layout.owner_of() gives it. While the peer computes, its owner
// serves the other peers from a service thread over the peer's mailbox: a kPush is folded in
// (and each of its keys counted once), a kSet stored, a kGet answered with the stored values.
// The peer's own pushes, sets and reads of its own keys go through apply()/store()/read_at().
//
// Under a global barrier (BSP, SSP: `clocked`) the owner keeps a clock per peer, as the
// parameter server's servers do:
// - every peer sends each owner one kPush per step, empty or not, tagged with the clock the
//   step ends at (sets carry the same tag), and its own peer reports its steps (reached());
// - an update is folded in once every peer has ended the step it belongs to, in (step, peer)
//   order, so the stored values are a function of the steps alone, whatever the timing;
// - a read needing the pushes up to some clock (the reader's barrier bound, in the kGet's
//   header) is held until every peer has got there. The barrier having let the reader go means
//   every peer has sent those pushes, so a held read is always answered.
// Under BSP a read at clock c then sees exactly the first c steps of every peer, bit for bit
// on every backend. Under other rules updates are folded in as they arrive and reads answered
// at once.
//
// A malformed or misaddressed message fails the job, naming its sender: the other peers are
// told (runtime::fail_job), and this peer's group is closed so that its own waits end; the
// peer then rethrows the owner's error (rethrow_if_failed) rather than the closed group.
class P2pOwner {
 public:
  P2pOwner(runtime::Mailbox& inbox, P2pLayout layout, Fold fold, std::function<Value(Key)> initial, bool clocked = false);
  ~P2pOwner();  // stops the service thread
  P2pOwner(const P2pOwner&) = delete;
  P2pOwner& operator=(const P2pOwner&) = delete;

  // A key this peer owns, once every peer's pushes up to `clock` are in (at once when not
  // clocked); past `deadline` a JobFailed naming a peer that is behind.
  Value read_at(Key key, std::int64_t clock, std::chrono::steady_clock::time_point deadline);
  // This peer's own push to, or set of, its own key, in the step ending at `step_end`.
  void apply(Key key, std::span<const double> delta, std::int64_t step_end);
  void store(Key key, Value value, std::int64_t step_end);
  // This peer has ended the step ending at `clock` (its pushes are applied).
  void reached(std::int64_t clock);

  // Returns once every other peer has said kDone (so all their pushes are in, and folded), or
  // throws the service's error; past `deadline`, a JobFailed naming a peer that has not.
  void finish(std::chrono::steady_clock::time_point deadline);
  // Throws what stopped the service, if anything did.
  void rethrow_if_failed() const;

  std::map<Key, Value> values() const;
  std::map<Key, std::uint64_t> pushes_applied() const;  // per key: how many pushes were folded in
  std::uint64_t held_reads() const;                     // other peers' reads held for their bound

 private:
  void serve();
  void handle(const net::Message& m);
  // Answers the held reads now due (the values read under mutex_, sent after).
  void answer_due();
  void answer(int peer, std::uint64_t request, const KeyValues& kv);

  runtime::Mailbox& inbox_;
  P2pLayout layout_;
  int self_;
  bool clocked_;
  mutable std::mutex mutex_;
  // Under mutex_: the owned keys; the members are the peers, whose clocks move only when clocked_.
  ClockedStore store_;
  std::condition_variable advanced_;  // a clock moved, or the service ended
  std::vector<char> done_;            // per peer: said kDone
  int done_count_ = 0;
  std::exception_ptr error_;
  std::atomic<bool> stop_{false};
  std::atomic<bool> ended_{false};
  std::thread service_;
};

}  // namespace gyre::ps::p2p
