// gyre/pipeline/p2p_owner.hpp — a peer's part of the model: folds in every push to its keys once, answers reads, on a thread of its own.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <exception>
#include <functional>
#include <map>
#include <mutex>
#include <span>
#include <thread>
#include <vector>

#include "gyre/base/export.hpp"
#include "gyre/net/group.hpp"
#include "gyre/pipeline/p2p_protocol.hpp"
#include "gyre/pipeline/ps_server.hpp"
#include "gyre/runtime/mailbox.hpp"

namespace gyre::pipeline::p2p {

using ps::Fold;  // how a stored value takes an update; empty: adds it

// Every peer owns the keys layout.owner_of() gives it. While the peer computes, its owner
// serves the other peers from a service thread over the peer's mailbox: a kPush is folded in
// (and each of its keys counted once), a kSet stored, a kGet answered at once with the current
// values. The peer's own pushes and reads of its own keys go through apply()/read() directly.
//
// A malformed or misaddressed message fails the job, naming its sender: the other peers are
// told (runtime::fail_job), and this peer's group is closed so that its own waits end; the
// peer then rethrows the owner's error (rethrow_if_failed) rather than the closed group.
class GYRE_API P2pOwner {
 public:
  P2pOwner(runtime::Mailbox& inbox, P2pLayout layout, Fold fold, std::function<Value(Key)> initial);
  ~P2pOwner();  // stops the service thread
  P2pOwner(const P2pOwner&) = delete;
  P2pOwner& operator=(const P2pOwner&) = delete;

  Value read(Key key) const;                         // a key this peer owns
  void apply(Key key, std::span<const double> delta);  // this peer's own push to its own key
  void store(Key key, Value value);                    // this peer's own set

  // Returns once every other peer has said kDone (so all their pushes are in), or throws the
  // service's error; past `deadline`, a JobFailed naming a peer that has not.
  void finish(std::chrono::steady_clock::time_point deadline);
  // Throws what stopped the service, if anything did.
  void rethrow_if_failed() const;

  std::map<Key, Value> values() const;
  std::map<Key, std::uint64_t> pushes_applied() const;  // per key: how many pushes were folded in

 private:
  void serve();
  void handle(const net::Message& m);
  Value& stored(Key key);  // under mutex_

  runtime::Mailbox& inbox_;
  P2pLayout layout_;
  int self_;
  Fold fold_;
  std::function<Value(Key)> initial_;
  mutable std::mutex mutex_;
  std::map<Key, Value> values_;
  std::map<Key, std::uint64_t> applied_;
  std::vector<char> done_;  // per peer: said kDone
  int done_count_ = 0;
  std::exception_ptr error_;
  std::atomic<bool> stop_{false};
  std::atomic<bool> ended_{false};
  std::thread service_;
};

}  // namespace gyre::pipeline::p2p
