// gyre/mapreduce/collection.hpp — a typed distributed collection, one partition per rank: the codec its values
// travel in, a rank's Context (its peers and exchanges), and the verbs (map, filter, shuffle, join, fold, ...).
#pragma once

#include <chrono>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

#include "gyre/base/buffer.hpp"
#include "gyre/base/export.hpp"
#include "gyre/collective/communicator.hpp"
#include "gyre/runtime/mailbox.hpp"
#include "gyre/wire/body.hpp"

namespace gyre::mapreduce {

// Codec<T> says how a value of T is written to and read from a message body (wire::Writer,
// wire::Reader): its exact encoded size, put and get, and the fewest bytes any value takes
// (min_size, at least 1), which bounds a peer's element count by the bytes it actually sent.
// Built in: the wire scalars (integers, floating point, enums), std::string, std::pair and
// std::vector of encodable types. For a type of your own, specialise Codec in this namespace
// with the same four members; a get that reads counts through Reader::count or check_count
// keeps decoding bounded.
template <class T>
struct Codec;

template <wire::Scalar T>
struct Codec<T> {
  static constexpr std::size_t min_size = sizeof(T);
  static std::size_t size(const T&) noexcept { return sizeof(T); }
  static void put(wire::Writer& w, const T& v) { w.put(v); }
  static T get(wire::Reader& r) { return r.get<T>("a value"); }
};

template <>
struct Codec<std::string> {
  static constexpr std::size_t min_size = sizeof(std::uint32_t);
  static std::size_t size(const std::string& s) noexcept { return sizeof(std::uint32_t) + s.size(); }
  static void put(wire::Writer& w, const std::string& s) { w.put_text(s, std::numeric_limits<std::uint32_t>::max()); }
  static std::string get(wire::Reader& r) { return r.get_text(std::numeric_limits<std::uint32_t>::max(), "a string"); }
};

template <class A, class B>
struct Codec<std::pair<A, B>> {
  static constexpr std::size_t min_size = Codec<A>::min_size + Codec<B>::min_size;
  static std::size_t size(const std::pair<A, B>& p) { return Codec<A>::size(p.first) + Codec<B>::size(p.second); }
  static void put(wire::Writer& w, const std::pair<A, B>& p) {
    Codec<A>::put(w, p.first);
    Codec<B>::put(w, p.second);
  }
  static std::pair<A, B> get(wire::Reader& r) {
    A a = Codec<A>::get(r);  // in order: the arguments of a constructor call are not
    B b = Codec<B>::get(r);
    return {std::move(a), std::move(b)};
  }
};

template <class T>
struct Codec<std::vector<T>> {
  static constexpr std::size_t min_size = sizeof(std::uint32_t);
  static std::size_t size(const std::vector<T>& v) {
    std::size_t n = sizeof(std::uint32_t);
    for (const T& x : v) n += Codec<T>::size(x);
    return n;
  }
  static void put(wire::Writer& w, const std::vector<T>& v) {
    if (v.size() > std::numeric_limits<std::uint32_t>::max()) throw std::length_error("a vector of over 2^32 values");
    w.put(static_cast<std::uint32_t>(v.size()));
    for (const T& x : v) Codec<T>::put(w, x);
  }
  static std::vector<T> get(wire::Reader& r) {
    std::vector<T> v(r.count(Codec<T>::min_size, "a vector's length"));
    for (T& x : v) x = Codec<T>::get(r);
    return v;
  }
};

// Whether T has a Codec.
template <class T>
concept Encodable = requires(const T& v, wire::Writer& w, wire::Reader& r) {
  { Codec<T>::min_size } -> std::convertible_to<std::size_t>;
  { Codec<T>::size(v) } -> std::convertible_to<std::size_t>;
  Codec<T>::put(w, v);
  { Codec<T>::get(r) } -> std::convertible_to<T>;
};

namespace detail {
// A range's element, or what it points to (a shuffle encodes pointers to the values it sends).
template <class T, class V>
const T& value_of(const V& v) {
  if constexpr (std::is_pointer_v<V>) return *v;
  else return v;
}
}  // namespace detail

// The bytes of `values` (a range of T, or of pointers to T) as one body: a u64 count, then each value.
template <Encodable T, class Range>
std::size_t encoded_size(const Range& values) {
  std::size_t n = sizeof(std::uint64_t);
  for (const auto& v : values) n += Codec<T>::size(detail::value_of<T>(v));
  return n;
}
template <Encodable T, class Range>
Buffer encode_values(const Range& values, std::size_t size) {
  wire::Writer w(size);
  w.put(static_cast<std::uint64_t>(std::size(values)));
  for (const auto& v : values) Codec<T>::put(w, detail::value_of<T>(v));
  return w.finish();
}
template <Encodable T, class Range>
Buffer encode_values(const Range& values) {
  return encode_values<T>(values, encoded_size<T>(values));
}

// The values of a body that encode_values wrote, appended to `into`; the count is checked
// against the bytes that follow before anything is reserved, and every byte must be used.
// Errors are wire::DecodeError, prefixed by `context`.
template <Encodable T>
void decode_values(std::span<const std::byte> body, std::vector<T>& into, std::string context) {
  static_assert(Codec<T>::min_size >= 1, "a Codec's min_size must be at least 1 byte");
  wire::Reader r(body, std::move(context));
  const std::size_t n = r.count<std::uint64_t>(Codec<T>::min_size, "the value count");
  into.reserve(into.size() + n);
  for (std::size_t i = 0; i < n; ++i) into.push_back(Codec<T>::get(r));
  r.finish();
}

// One rank's view of a map-reduce job: its number, its peers, and the exchanges the verbs are made of.

struct Options {
  // The most bytes one rank may send, and the most it may receive, in one communicating verb
  // (a shuffle, a collect): past it the verb throws std::length_error naming this limit instead
  // of the job growing until the system kills it. At most 1 GiB (the transport's largest frame).
  std::uint64_t max_shuffle_bytes = std::uint64_t{256} << 20;
  // Longest wait for one peer's part of an exchange; past it the verb throws naming the peer.
  std::chrono::milliseconds timeout{std::chrono::minutes(10)};
};

// A peer sent something that does not decode: what() names its rank, sender() is that rank.
class GYRE_API BadMessage : public std::runtime_error {
 public:
  BadMessage(int sender, const std::string& text) : std::runtime_error(text), sender_(sender) {}
  int sender() const noexcept { return sender_; }

 private:
  int sender_;
};

// Each worker of a job is a rank; a collection is one partition per rank. Every rank must call
// the same communicating verbs in the same order (as with collectives in MPI): each exchange is
// numbered, and its messages are matched by that number and their sender.
class GYRE_API Context {
 public:
  // Ranks 0..workers−1 of the mailbox's group take part; this member must be one of them.
  Context(runtime::Mailbox& mailbox, int workers, Options options = {});

  int rank() const noexcept { return comm_.index(); }
  int size() const noexcept { return comm_.size(); }
  const Options& options() const noexcept { return options_; }
  // The member's one receive path, for a protocol of the program's own beside the verbs.
  runtime::Mailbox& mailbox() const noexcept { return mailbox_; }

  // Throws std::length_error naming the limit when `bytes` (sent or received by `verb`) is over it.
  void check_limit(std::uint64_t bytes, std::string_view verb, std::string_view direction) const;

  // All to all: outgoing[m] goes to rank m (this rank's own entry is not sent, and comes back
  // empty); returns what every rank sent this one. Both directions are checked against the limit.
  std::vector<Buffer> exchange(std::vector<Buffer> outgoing, std::string_view verb);
  // Every rank's `mine`, in rank order, on every rank.
  std::vector<Buffer> allgather(const Buffer& mine, std::string_view verb);
  // Every rank's `mine`, in rank order, on `root`; an empty vector elsewhere.
  std::vector<Buffer> gather(Buffer mine, int root, std::string_view verb);
  // Every rank's values, decoded, in rank order (a body that does not decode: BadMessage).
  template <Encodable T>
  std::vector<std::vector<T>> allgather_values(const std::vector<T>& mine, std::string_view verb) {
    std::vector<std::vector<T>> out(static_cast<std::size_t>(size()));
    const auto bodies = allgather(encode_values<T>(mine), verb);
    for (int r = 0; r < size(); ++r) decode_from(r, bodies[static_cast<std::size_t>(r)], out[static_cast<std::size_t>(r)], verb);
    return out;
  }
  // `root`'s `mine` on every rank.
  Buffer broadcast(Buffer mine, int root, std::string_view verb);
  // The sum of every rank's `value`.
  std::uint64_t sum(std::uint64_t value);
  // Element by element, the sums of every rank's `values` (all of one length), in place.
  void sum_each(std::span<std::uint64_t> values);

  // The values rank `from` encoded in `body` (encode_values), appended to `into`; a body that
  // does not decode throws BadMessage naming `from` and the verb.
  template <Encodable T>
  void decode_from(int from, const Buffer& body, std::vector<T>& into, std::string_view verb) const {
    try {
      decode_values<T>(body.bytes(), into, {});
    } catch (const wire::DecodeError& e) {
      bad_message(from, verb, e.what());
    }
  }
  [[noreturn]] void bad_message(int from, std::string_view verb, const std::string& why) const;

 private:
  Buffer receive(int from, std::uint64_t op, std::uint64_t& received, std::string_view verb);

  runtime::Mailbox& mailbox_;
  collective::Communicator comm_;
  Options options_;
};

// The values of a collection are spread over the ranks of a job: each rank holds its partition
// (local()), and a verb called on every rank acts on the whole. The verbs here act on each
// partition alone, in order (map, flatmap, filter, union_with): no rank waits for another.
// Those that communicate are free functions: shuffle, reduce_by_key and join, fold,
// reduce, count, collect and broadcast (below), load and save (mapreduce.hpp). A
// collection refers to its rank's Context, which must outlive it.
template <class T>
class Collection {
 public:
  using value_type = T;

  Collection(Context& context, std::vector<T> local) : context_(&context), local_(std::move(local)) {}

  Context& context() const noexcept { return *context_; }
  // This rank's partition.
  const std::vector<T>& local() const noexcept { return local_; }
  std::vector<T>& local() noexcept { return local_; }
  std::vector<T> release() && { return std::move(local_); }

  // f(value) for every value.
  template <class F>
  auto map(F f) const {
    using U = std::decay_t<std::invoke_result_t<F&, const T&>>;
    std::vector<U> out;
    out.reserve(local_.size());
    for (const T& v : local_) out.push_back(f(v));
    return Collection<U>(*context_, std::move(out));
  }

  // Every value f emits for every value: f(value, emit) calls emit(u) zero or more times, and
  // the collection's type is U (given, as it cannot be deduced from f).
  template <class U, class F>
  Collection<U> flatmap(F f) const {
    std::vector<U> out;
    auto emit = [&out](U u) { out.push_back(std::move(u)); };
    for (const T& v : local_) f(v, emit);
    return Collection<U>(*context_, std::move(out));
  }

  // The values for which pred(value) holds.
  template <class Pred>
  Collection filter(Pred pred) const {
    std::vector<T> out;
    for (const T& v : local_)
      if (pred(v)) out.push_back(v);
    return Collection(*context_, std::move(out));
  }

  // Both collections' values: on each rank, this partition then other's. Both must belong to
  // the same job (the same Context).
  Collection union_with(const Collection& other) const {
    if (other.context_ != context_) throw std::invalid_argument("mapreduce union: collections of different jobs");
    std::vector<T> out;
    out.reserve(local_.size() + other.local_.size());
    out.insert(out.end(), local_.begin(), local_.end());
    out.insert(out.end(), other.local_.begin(), other.local_.end());
    return Collection(*context_, std::move(out));
  }

 private:
  Context* context_;
  std::vector<T> local_;
};

// A collection whose rank r holds part(r) of `values` given on every rank: values
// [r·n/P, (r+1)·n/P) (a job's input that every rank already has, as a test's).
template <class T>
Collection<T> distribute(Context& context, const std::vector<T>& values) {
  const auto n = values.size(), P = static_cast<std::size_t>(context.size()), r = static_cast<std::size_t>(context.rank());
  const auto begin = values.begin() + static_cast<std::ptrdiff_t>(n * r / P);
  const auto end = values.begin() + static_cast<std::ptrdiff_t>(n * (r + 1) / P);
  return Collection<T>(context, std::vector<T>(begin, end));
}

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

// The verbs that bring a collection's values together: fold, reduce, count, collect, broadcast.

// Each is collective: every rank calls it, in the same order as every other communicating verb.

// The number of values over all ranks, on every rank.
template <class T>
std::uint64_t count(const Collection<T>& c) {
  return c.context().sum(c.local().size());
}

// Every rank's values, in rank order (each partition in its order), on `root`; empty elsewhere.
template <Encodable T>
std::vector<T> collect(const Collection<T>& c, int root = 0) {
  Context& ctx = c.context();
  auto parts = ctx.gather(encode_values<T>(c.local()), root, "collect");
  std::vector<T> all;
  for (int m = 0; m < static_cast<int>(parts.size()); ++m)
    ctx.decode_from(m, parts[static_cast<std::size_t>(m)], all, "collect");
  return all;
}

// Every rank's values, in rank order, on every rank.
template <Encodable T>
std::vector<T> collect_all(const Collection<T>& c) {
  Context& ctx = c.context();
  const auto parts = ctx.allgather(encode_values<T>(c.local()), "collect");
  std::vector<T> all;
  for (int m = 0; m < ctx.size(); ++m) ctx.decode_from(m, parts[static_cast<std::size_t>(m)], all, "collect");
  return all;
}

// `root`'s `value` on every rank.
template <Encodable T>
T broadcast(Context& ctx, const T& value, int root = 0) {
  const std::vector<T> mine{value};
  const Buffer body = ctx.broadcast(ctx.rank() == root ? encode_values<T>(mine) : Buffer{}, root, "broadcast");
  std::vector<T> got;
  ctx.decode_from(root, body, got, "broadcast");
  if (got.size() != 1) ctx.bad_message(root, "broadcast", std::to_string(got.size()) + " values where 1 was expected");
  return std::move(got.front());
}

// Folds each partition, from `init`, with step(acc, value); then the ranks' results, in rank
// order, with combine(acc, acc). The result is on every rank. Deterministic: the order of
// every operation depends only on the partitions.
template <Encodable A, class T, class Step, class Combine>
A fold(const Collection<T>& c, A init, Step step, Combine combine) {
  A acc = std::move(init);
  for (const T& v : c.local()) acc = step(std::move(acc), v);
  Context& ctx = c.context();
  const auto parts = ctx.allgather(encode_values<A>(std::vector<A>{acc}), "fold");
  std::optional<A> out;
  for (int m = 0; m < ctx.size(); ++m) {
    std::vector<A> got;
    ctx.decode_from(m, parts[static_cast<std::size_t>(m)], got, "fold");
    if (got.size() != 1) ctx.bad_message(m, "fold", std::to_string(got.size()) + " results where 1 was expected");
    out = out ? combine(std::move(*out), std::move(got.front())) : std::move(got.front());
  }
  return std::move(*out);
}

// All values combined with f(T, T) (associative), in rank order; nullopt when the collection is
// empty on every rank. The result is on every rank.
template <Encodable T, class F>
std::optional<T> reduce(const Collection<T>& c, F f) {
  std::vector<T> partial;  // this partition's result, if it has values
  for (const T& v : c.local()) {
    if (partial.empty()) partial.push_back(v);
    else partial.front() = f(std::move(partial.front()), v);
  }
  Context& ctx = c.context();
  const auto parts = ctx.allgather(encode_values<T>(partial), "reduce");
  std::optional<T> out;
  for (int m = 0; m < ctx.size(); ++m) {
    std::vector<T> got;
    ctx.decode_from(m, parts[static_cast<std::size_t>(m)], got, "reduce");
    if (got.size() > 1) ctx.bad_message(m, "reduce", std::to_string(got.size()) + " results where 1 was expected");
    for (T& v : got) out = out ? f(std::move(*out), std::move(v)) : std::move(v);
  }
  return out;
}

}  // namespace gyre::mapreduce
