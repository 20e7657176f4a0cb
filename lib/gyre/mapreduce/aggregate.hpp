// gyre/mapreduce/aggregate.hpp — the verbs that bring a collection's values together: fold, reduce, count, collect, broadcast.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gyre/mapreduce/codec.hpp"
#include "gyre/mapreduce/collection.hpp"
#include "gyre/mapreduce/context.hpp"

namespace gyre::mapreduce {

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
