// gyre/mapreduce/collection.hpp — a typed distributed collection: one partition per rank, and the verbs that need no exchange.
#pragma once

#include <functional>
#include <stdexcept>
#include <type_traits>
#include <utility>
#include <vector>

#include "gyre/mapreduce/context.hpp"

namespace gyre::mapreduce {

// The values of a collection are spread over the ranks of a job: each rank holds its partition
// (local()), and a verb called on every rank acts on the whole. The verbs here act on each
// partition alone, in order (map, flatmap, filter, union_with): no rank waits for another.
// Those that communicate are free functions: shuffle, reduce_by_key and join (keyed.hpp), fold,
// reduce, count, collect and broadcast (aggregate.hpp), load and save (text_io.hpp). A
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

}  // namespace gyre::mapreduce
