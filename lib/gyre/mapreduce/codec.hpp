// gyre/mapreduce/codec.hpp — how a collection's values travel: the body codec, every count checked before anything is sized from it.
#pragma once

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <stdexcept>
#include <type_traits>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gyre/base/buffer.hpp"
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

}  // namespace gyre::mapreduce
