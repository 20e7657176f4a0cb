// gyre/ps/p2p_peer.hpp — a peer's handle on a peer-to-peer job: get, set, push, barrier, stop; its owner serves the others.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <vector>

#include "gyre/ps/ps_job.hpp"
#include "gyre/ps/p2p_owner.hpp"
#include "gyre/ps/peer_barrier.hpp"
#include "gyre/ps/table_rules.hpp"
#include "gyre/runtime/mailbox.hpp"

namespace gyre::ps::p2p {

struct P2pPeerOptions {
  std::chrono::milliseconds timeout{std::chrono::minutes(10)};  // longest wait for an owner's reply or a peer's clock
  std::uint64_t seed = 1;                                      // pBSP/pSSP peer samples
  Fold pull;                                                   // how owners fold pushes in; empty: add
  std::function<Value(Key)> initial;                           // a key's value before any push; empty: zeros
  std::vector<Table> tables;                                   // keys whose reads follow rules of their own (ps_job.hpp)
};

// No server: the peer owns a part of the keys (P2pOwner) and reads and pushes the rest straight
// to their owners. push() sums a step's updates per key; barrier() sends each owner one kPush
// with them (its own keys are folded in at once), ticks the clock and waits on the barrier rule
// over the peers' clocks (PeerBarrier: every peer for BSP/SSP, β sampled for
// pBSP/pSSP, any BarrierRule), so nothing needs global state. get() asks the owners for their
// current values (read-my-writes: this step's unsent pushes are added). Under a global barrier
// (BSP, SSP(s)) a read at clock c carries the barrier's bound, required(c), and owners hold it
// until every peer's pushes up to that clock are in (P2pOwner), so what it reads includes every
// peer's first c − s steps, as on the parameter server; under other rules owners answer with
// what they have.
class P2pPeer final : public Worker {
 public:
  P2pPeer(runtime::Mailbox& inbox, P2pLayout layout, Barrier barrier, P2pPeerOptions options = {});
  ~P2pPeer() override;

  int workers() const noexcept override { return layout_.peers; }
  int index() const noexcept override { return index_; }
  std::int64_t clock() const noexcept override { return clock_; }
  const P2pLayout& layout() const noexcept { return layout_; }

  Versioned get(Key key) override;
  std::vector<Versioned> get(std::span<const Key> keys) override;  // one read per owner
  // Stored by the owner as it is, sent at once; under BSP/SSP it takes effect with the step's
  // pushes (once every peer has ended the step), so this step's reads do not see it yet.
  void set(Key key, Value value) override;
  void push(Key key, std::span<const double> delta) override;  // folded in by the owner once, sent at barrier()
  std::vector<Key> keys() override;  // 0 … keys−1: every peer knows the layout

  // Ends the step: pushes to their owners, clock +1, then the barrier rule. Returns the time held.
  std::chrono::nanoseconds barrier();
  // Sends what is left, lets the peers stop waiting for this one, tells every peer it is done,
  // and returns once every peer is (so every push to this peer's keys is in).
  void stop();

  P2pPeerReport report() const;
  const P2pOwner& owner() const noexcept { return *owner_; }

 private:
  void flush();
  void check_key(Key key) const;
  void check_value(Key key, std::size_t size, const char* verb) const;
  // Runs `f`; when the group was closed under it because this peer's owner failed, throws the owner's error instead.
  template <class F>
  auto guarded(F&& f) -> decltype(f());

  runtime::Mailbox& inbox_;
  P2pLayout layout_;
  int index_;
  P2pPeerOptions options_;
  TableRules rules_;  // which rule bounds a read of each key
  std::unique_ptr<P2pOwner> owner_;
  std::unique_ptr<PeerBarrier> barrier_;
  std::int64_t clock_ = 0;
  std::map<Key, Value> unsent_;
  std::uint64_t next_request_ = 0;
  std::uint64_t remote_reads_ = 0, pushes_sent_ = 0;
  std::chrono::nanoseconds held_{0};
  bool stopped_ = false;
};

}  // namespace gyre::ps::p2p
