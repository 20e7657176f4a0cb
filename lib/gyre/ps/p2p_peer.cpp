// gyre/ps/p2p_peer.cpp — the peer side: reads from owners, pushes summed per step and sent once, the barrier, the end.
#include "gyre/ps/p2p_peer.hpp"

#include <algorithm>
#include <numeric>
#include <stdexcept>
#include <string>

#include "gyre/runtime/failure.hpp"
#include "gyre/runtime/receiver.hpp"

namespace gyre::ps::p2p {

P2pPeer::P2pPeer(runtime::Mailbox& inbox, P2pLayout layout, Barrier barrier, P2pPeerOptions options)
    : inbox_(inbox),
      layout_(layout),
      index_(inbox.group().rank()),
      options_(std::move(options)),
      rules_(barrier, options_.tables, layout_.keys) {
  layout_.validate();
  if (index_ < 0 || index_ >= layout_.peers) throw std::invalid_argument("peer-to-peer: this rank is not a peer");
  owner_ = std::make_unique<P2pOwner>(inbox_, layout_, options_.pull, options_.initial, rules_.any_global());
  barrier_ = std::make_unique<PeerBarrier>(inbox_, layout_.peer_ranks(), std::move(barrier),
                                                      PeerBarrierOptions{options_.timeout, options_.seed});
}

P2pPeer::~P2pPeer() = default;

std::vector<Key> P2pPeer::keys() {
  std::vector<Key> all(static_cast<std::size_t>(layout_.keys));
  std::iota(all.begin(), all.end(), Key{0});
  return all;
}

template <class F>
auto P2pPeer::guarded(F&& f) -> decltype(f()) {
  owner_->rethrow_if_failed();
  try {
    return f();
  } catch (const net::GroupClosed&) {
    owner_->rethrow_if_failed();
    throw;
  } catch (const runtime::JobFailed& e) {
    // A closed transport, as a receive reports it: the owner's failure may be what closed it.
    if (e.cause() == runtime::FailureCause::kPeerLost) owner_->rethrow_if_failed();
    throw;
  }
}

void P2pPeer::check_key(Key key) const {
  if (key >= layout_.keys)
    throw std::out_of_range("peer-to-peer: key " + std::to_string(key) + " is outside 0 … " +
                            std::to_string(layout_.keys - 1));
}

void P2pPeer::check_value(Key key, std::size_t size, const char* verb) const {
  if (size != layout_.value_size)
    throw std::invalid_argument(std::string("peer-to-peer: ") + verb + " of key " + std::to_string(key) + " with " +
                                std::to_string(size) + " doubles, not " + std::to_string(layout_.value_size));
}

std::vector<Versioned> P2pPeer::get(std::span<const Key> keys) {
  return guarded([&] {
    // One read per owner and freshness: the owners hold each until every peer's pushes have
    // reached the clock its keys' rule needs (a tight table's keys wait, a loose one's not).
    std::map<std::pair<int, std::int64_t>, std::vector<Key>> remote;  // (owner, clock needed) → keys, sorted and distinct
    for (Key k : keys) {
      check_key(k);
      if (const int o = layout_.owner_of(k); o != index_) remote[{o, rules_.needed(k, clock_)}].push_back(k);
    }
    std::map<std::uint64_t, std::pair<int, std::int64_t>> pending;  // request → its read
    for (auto& [read, list] : remote) {
      std::sort(list.begin(), list.end());
      list.erase(std::unique(list.begin(), list.end()), list.end());
      net::Message m;
      m.type = kGet;
      m.tag = next_request_++;
      m.body = encode_keys(list, read.second);
      pending.emplace(m.tag, read);
      inbox_.group().send(read.first, std::move(m));
    }
    std::map<Key, Value> got;
    const auto deadline = net::Clock::now() + options_.timeout;
    const runtime::Receiver receiver(inbox_, "peer-to-peer peer " + std::to_string(index_), options_.timeout);
    const auto silent = [&] {
      const int owner = pending.begin()->second.first;
      return runtime::Silence{owner, "reply from rank " + std::to_string(owner)};
    };
    while (!pending.empty()) {
      const net::Message m = receiver.receive(
          [&](const net::Message& x) {
            const auto it = pending.find(x.tag);
            return x.type == kGetReply && it != pending.end() && it->second.first == x.sender;
          },
          silent, deadline);
      KeyValues kv;
      try {
        kv = decode_get_reply(m, remote.at(pending.at(m.tag)), layout_);
      } catch (const std::runtime_error& e) {
        throw runtime::JobFailed(m.sender, runtime::FailureCause::kBadMessage,
                                 receiver.who() + ": rank " + std::to_string(m.sender) + " sent a bad reply: " + e.what());
      }
      for (auto& [k, v] : kv) got[k] = std::move(v);
      remote_reads_ += kv.size();
      pending.erase(m.tag);
    }
    std::vector<Versioned> out;
    out.reserve(keys.size());
    for (Key k : keys) {
      Versioned v{layout_.owner_of(k) == index_ ? owner_->read_at(k, rules_.needed(k, clock_), deadline) : got.at(k), clock_};
      if (const auto mine = unsent_.find(k); mine != unsent_.end())
        for (std::size_t i = 0; i < v.value.size(); ++i) v.value[i] += mine->second[i];
      out.push_back(std::move(v));
    }
    return out;
  });
}

Versioned P2pPeer::get(Key key) { return std::move(get(std::span<const Key>(&key, 1)).front()); }

void P2pPeer::set(Key key, Value value) {
  check_key(key);
  check_value(key, value.size(), "set");
  unsent_.erase(key);
  const int o = layout_.owner_of(key);
  if (o == index_) return owner_->store(key, std::move(value), clock_ + 1);
  net::Message m;
  m.type = kSet;
  m.tag = static_cast<std::uint64_t>(clock_ + 1);  // the step it belongs to
  m.body = encode_key_values({{key, std::move(value)}}, 0);
  guarded([&] { inbox_.group().send(o, std::move(m)); });
}

void P2pPeer::push(Key key, std::span<const double> delta) {
  check_key(key);
  check_value(key, delta.size(), "push");
  auto [it, fresh] = unsent_.try_emplace(key, Value(layout_.value_size, 0.0));
  for (std::size_t i = 0; i < delta.size(); ++i) it->second[i] += delta[i];
}

void P2pPeer::flush() {
  std::map<int, KeyValues> by_owner;
  for (auto& [k, delta] : unsent_) {
    ++pushes_sent_;
    if (const int o = layout_.owner_of(k); o == index_) owner_->apply(k, delta, clock_ + 1);
    else by_owner[o].emplace_back(k, std::move(delta));
  }
  unsent_.clear();
  // Under a global barrier (the job's or a table's) every owner hears of every step, so that it
  // knows when to answer the reads it holds (P2pOwner).
  if (rules_.any_global())
    for (int r : layout_.peer_ranks())
      if (r != index_) by_owner.try_emplace(r);
  for (auto& [owner, kv] : by_owner) {
    net::Message m;
    m.type = kPush;
    m.tag = static_cast<std::uint64_t>(clock_ + 1);
    m.body = encode_key_values(kv, 0);
    inbox_.group().send(owner, std::move(m));
  }
  owner_->reached(clock_ + 1);
}

std::chrono::nanoseconds P2pPeer::barrier() {
  if (stopped_) throw std::logic_error("peer-to-peer: barrier() after stop()");
  return guarded([&] {
    flush();
    ++clock_;
    barrier_->tick();
    const auto held = barrier_->wait();
    held_ += held;
    return held;
  });
}

void P2pPeer::stop() {
  if (stopped_) return;
  stopped_ = true;
  guarded([&] {
    flush();
    owner_->reached(Barrier::kFinished);  // nothing more from this peer: no read waits for it
    barrier_->finish();
    for (int r : layout_.peer_ranks()) {
      if (r == index_) continue;
      net::Message m;
      m.type = kDone;
      inbox_.group().send(r, std::move(m));
    }
    owner_->finish(std::chrono::steady_clock::now() + options_.timeout);
  });
}

P2pPeerReport P2pPeer::report() const {
  return {clock_, held_, remote_reads_, pushes_sent_, barrier_->queries_sent(), owner_->held_reads()};
}

}  // namespace gyre::ps::p2p
