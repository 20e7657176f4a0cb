// gyre/mapreduce/keyed.hpp — the verbs on collections of (key, value) pairs: shuffle by key hash, reduce_by_key, join.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "gyre/mapreduce/codec.hpp"
#include "gyre/mapreduce/collection.hpp"
#include "gyre/mapreduce/context.hpp"

namespace gyre::mapreduce {

// A hash of a key that is the same on every rank and every host (std::hash is neither
// promised): FNV-1a over the key's encoding (a string's characters, a scalar's little-endian
// bytes). Picks the rank that owns the key: key_hash(k) mod P.
template <Encodable K>
std::uint64_t key_hash(const K& key) {
  auto fnv = [](std::span<const std::byte> bytes) {
    std::uint64_t h = 0xcbf29ce484222325ull;
    for (const std::byte b : bytes) h = (h ^ static_cast<std::uint64_t>(b)) * 0x100000001b3ull;
    return h;
  };
  if constexpr (std::is_same_v<K, std::string>) {
    return fnv(std::as_bytes(std::span<const char>(key.data(), key.size())));
  } else if constexpr (wire::Scalar<K>) {
    const K little = wire::little(key);
    return fnv(std::as_bytes(std::span<const K>(&little, 1)));
  } else {
    wire::Writer w(Codec<K>::size(key));
    Codec<K>::put(w, key);
    const Buffer b = w.finish();
    return fnv(b.bytes());
  }
}

template <Encodable K>
int owner_of(const K& key, int ranks) {
  return static_cast<int>(key_hash(key) % static_cast<std::uint64_t>(ranks));
}

// For hash maps keyed by K: the same hash.
struct KeyHash {
  template <class K>
  std::size_t operator()(const K& key) const {
    return static_cast<std::size_t>(key_hash(key));
  }
};

// Moves every pair to the rank that owns its key (owner_of), over the data plane: afterwards
// all pairs with one key are on one rank, in rank order of where they were, each rank's in its
// order. The bytes one rank sends, and those it receives, are each at most the context's
// max_shuffle_bytes (std::length_error naming the limit otherwise); a message that does not
// decode throws BadMessage naming its sender.
template <Encodable K, Encodable V>
Collection<std::pair<K, V>> shuffle(Collection<std::pair<K, V>> c) {
  using P = std::pair<K, V>;
  Context& ctx = c.context();
  const int n = ctx.size();
  std::vector<P>& mine = c.local();
  std::vector<std::vector<P*>> to(static_cast<std::size_t>(n));
  std::vector<std::size_t> bytes(static_cast<std::size_t>(n), sizeof(std::uint64_t));
  std::uint64_t sending = 0;
  for (P& p : mine) {
    const auto d = static_cast<std::size_t>(owner_of(p.first, n));
    to[d].push_back(&p);
    if (static_cast<int>(d) != ctx.rank()) {
      const std::size_t size = Codec<P>::size(p);
      bytes[d] += size;
      sending += size;
    }
  }
  ctx.check_limit(sending, "shuffle", "send");  // before anything is encoded
  std::vector<Buffer> out(static_cast<std::size_t>(n));
  for (std::size_t m = 0; m < out.size(); ++m)
    if (static_cast<int>(m) != ctx.rank()) out[m] = encode_values<P>(to[m], bytes[m]);
  const auto in = ctx.exchange(std::move(out), "shuffle");
  std::vector<P> kept;
  for (std::size_t m = 0; m < in.size(); ++m) {
    if (static_cast<int>(m) != ctx.rank()) {
      ctx.decode_from(static_cast<int>(m), in[m], kept, "shuffle");
      continue;
    }
    for (P* p : to[m]) kept.push_back(std::move(*p));
  }
  return Collection<P>(ctx, std::move(kept));
}

namespace detail {
// Pairs with one key combined by f, in order; the keys in order of first appearance.
template <class K, class V, class F>
void combine_by_key(std::vector<std::pair<K, V>>& pairs, F& f) {
  std::unordered_map<K, std::size_t, KeyHash> at;
  std::vector<std::pair<K, V>> out;
  for (auto& p : pairs) {
    const auto [it, fresh] = at.try_emplace(p.first, out.size());
    if (fresh) out.push_back(std::move(p));
    else out[it->second].second = f(std::move(out[it->second].second), std::move(p.second));
  }
  pairs = std::move(out);
}
}  // namespace detail

// One pair per key, its values combined by f(V, V) (associative and commutative: each rank
// first combines its own pairs, then the key's owner combines what the ranks sent, in rank
// order). Each key ends on its owner rank.
template <Encodable K, Encodable V, class F>
Collection<std::pair<K, V>> reduce_by_key(Collection<std::pair<K, V>> c, F f) {
  detail::combine_by_key(c.local(), f);
  auto owned = shuffle(std::move(c));
  detail::combine_by_key(owned.local(), f);
  return owned;
}

// The inner join on keys: (k, (v, w)) for every pair (k, v) of `left` and (k, w) of `right`.
// Both are shuffled; on each rank the pairs come in the order of right's pairs, and for each
// in the order of left's.
template <Encodable K, Encodable V, Encodable W>
Collection<std::pair<K, std::pair<V, W>>> join(Collection<std::pair<K, V>> left, Collection<std::pair<K, W>> right) {
  if (&left.context() != &right.context()) throw std::invalid_argument("mapreduce join: collections of different jobs");
  auto l = shuffle(std::move(left));
  auto r = shuffle(std::move(right));
  std::unordered_map<K, std::vector<const V*>, KeyHash> by_key;
  for (const auto& [k, v] : l.local()) by_key[k].push_back(&v);
  std::vector<std::pair<K, std::pair<V, W>>> out;
  for (const auto& [k, w] : r.local())
    if (const auto it = by_key.find(k); it != by_key.end())
      for (const V* v : it->second) out.push_back({k, {*v, w}});
  return {l.context(), std::move(out)};
}

}  // namespace gyre::mapreduce
