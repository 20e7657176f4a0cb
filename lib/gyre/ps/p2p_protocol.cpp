// gyre/ps/p2p_protocol.cpp — key ownership over the peers, and the owner checks of peer-to-peer message bodies.
#include "gyre/ps/p2p_protocol.hpp"

#include <cmath>
#include <numeric>
#include <stdexcept>
#include <string>

namespace gyre::ps::p2p {
namespace {

PsLayout as_servers(const P2pLayout& l) {
  PsLayout s;
  s.workers = l.peers;
  s.servers = l.peers;
  s.keys = l.keys;
  s.value_size = l.value_size;
  s.sharding = l.sharding;
  return s;
}

// A key from the wire, in range before owner_of() looks at it.
void check_owned(const P2pLayout& layout, int owner, Key key) {
  if (key >= layout.keys)
    throw std::runtime_error("key " + std::to_string(key) + " is outside 0 … " + std::to_string(layout.keys - 1));
  if (const int o = layout.owner_of(key); o != owner)
    throw std::runtime_error("key " + std::to_string(key) + " is owned by peer " + std::to_string(o) + ", not peer " +
                             std::to_string(owner));
}

void check_length(const P2pLayout& layout, Key key, const Value& v) {
  if (v.size() != layout.value_size)
    throw std::runtime_error(std::to_string(v.size()) + " doubles for key " + std::to_string(key) + ", which holds " +
                             std::to_string(layout.value_size));
}

}  // namespace

int P2pLayout::owner_of(Key key) const { return as_servers(*this).server_of(key); }

std::vector<int> P2pLayout::peer_ranks() const {
  std::vector<int> r(static_cast<std::size_t>(peers));
  std::iota(r.begin(), r.end(), 0);
  return r;
}

void P2pLayout::validate() const {
  if (peers < 1) throw std::invalid_argument("peer-to-peer: at least one peer");
  try {
    as_servers(*this).validate();
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(std::string("peer-to-peer: ") + e.what());
  }
}

KeyValues decode_owned_values(const net::Message& m, const P2pLayout& layout, int owner) {
  std::int64_t ignored = 0;
  KeyValues kv = decode_key_values(m.body.bytes(), ignored);
  for (const auto& [k, v] : kv) {
    check_owned(layout, owner, k);
    check_length(layout, k, v);
  }
  return kv;
}

std::vector<Key> decode_owned_keys(const net::Message& m, const P2pLayout& layout, int owner, std::int64_t& clock) {
  std::vector<Key> keys = decode_keys(m.body.bytes(), clock);
  for (Key k : keys) check_owned(layout, owner, k);
  return keys;
}

KeyValues decode_get_reply(const net::Message& m, std::span<const Key> asked, const P2pLayout& layout) {
  std::int64_t ignored = 0;
  KeyValues kv = decode_key_values(m.body.bytes(), ignored);
  if (kv.size() != asked.size())
    throw std::runtime_error("answered " + std::to_string(kv.size()) + " keys for " + std::to_string(asked.size()));
  for (std::size_t i = 0; i < kv.size(); ++i) {
    if (kv[i].first != asked[i])
      throw std::runtime_error("answered key " + std::to_string(kv[i].first) + " where key " + std::to_string(asked[i]) +
                               " was asked");
    check_length(layout, kv[i].first, kv[i].second);
  }
  return kv;
}

// The body is the owned values with one more double each, the pushes that key took in (exact:
// a count stays far below 2^53); the meta is the counters, a handful of integers.
net::Message encode_hand_over(const HandOver& h) {
  if (h.applied.size() != h.values.size()) throw std::logic_error("peer-to-peer: a hand-over needs one count per key");
  KeyValues kv = h.values;
  for (std::size_t i = 0; i < kv.size(); ++i) kv[i].second.push_back(static_cast<double>(h.applied[i]));
  net::Message m;
  m.type = kHandOver;
  m.body = encode_key_values(kv, 0);
  const Buffer counters = encode_keys(h.counters, 0);
  m.meta.assign(counters.bytes().begin(), counters.bytes().end());
  return m;
}

HandOver decode_hand_over(const net::Message& m, const P2pLayout& layout, int owner, std::size_t counters) {
  HandOver h;
  std::int64_t ignored = 0;
  h.counters = decode_keys(m.meta, ignored);
  if (h.counters.size() != counters)
    throw std::runtime_error("a hand-over carries " + std::to_string(h.counters.size()) + " counters, not " +
                             std::to_string(counters));
  h.values = decode_key_values(m.body.bytes(), ignored);
  h.applied.reserve(h.values.size());
  for (auto& [k, v] : h.values) {
    check_owned(layout, owner, k);
    if (v.size() != layout.value_size + 1)
      throw std::runtime_error(std::to_string(v.size()) + " doubles for key " + std::to_string(k) + " in a hand-over, not " +
                               std::to_string(layout.value_size + 1));
    const double n = v.back();
    if (!(n >= 0 && n <= 9007199254740992.0) || n != std::floor(n))
      throw std::runtime_error("a hand-over says key " + std::to_string(k) + " took in " + std::to_string(n) + " pushes");
    h.applied.push_back(static_cast<std::uint64_t>(n));
    v.pop_back();
  }
  return h;
}

}  // namespace gyre::ps::p2p
