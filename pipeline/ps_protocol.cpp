// gyre/pipeline/ps_protocol.cpp — flat little-endian bodies of the parameter server's messages.
#include "gyre/pipeline/ps_protocol.hpp"

#include <cstring>
#include <stdexcept>
#include <string>

namespace gyre::pipeline::ps {
namespace {

class Writer {
 public:
  explicit Writer(std::size_t size) : buffer_(size) {}
  template <class T>
  void put(const T& v) { put_bytes(&v, sizeof v); }
  void put_bytes(const void* p, std::size_t n) {
    if (n) std::memcpy(buffer_.data() + at_, p, n);
    at_ += n;
  }
  Buffer done() { return std::move(buffer_); }

 private:
  Buffer buffer_;
  std::size_t at_ = 0;
};

class Reader {
 public:
  explicit Reader(std::span<const std::byte> body) : body_(body) {}
  template <class T>
  T get(const char* what) {
    T v;
    need(sizeof v, what);
    std::memcpy(&v, body_.data() + at_, sizeof v);
    at_ += sizeof v;
    return v;
  }
  // A count of items of `item` bytes each that must all fit in what remains.
  std::uint32_t count(std::size_t item, const char* what) {
    const auto n = get<std::uint32_t>(what);
    if (static_cast<std::uint64_t>(n) * item > remaining())
      throw std::runtime_error(std::string("parameter server message: ") + what + " of " + std::to_string(n) +
                               " does not fit the " + std::to_string(remaining()) + " bytes left");
    return n;
  }
  void copy(void* into, std::size_t n, const char* what) {
    need(n, what);
    if (n) std::memcpy(into, body_.data() + at_, n);
    at_ += n;
  }
  void end() const {
    if (at_ != body_.size())
      throw std::runtime_error("parameter server message: " + std::to_string(body_.size() - at_) + " trailing bytes");
  }
  std::size_t remaining() const { return body_.size() - at_; }

 private:
  void need(std::size_t n, const char* what) const {
    if (n > remaining())
      throw std::runtime_error(std::string("parameter server message: truncated at ") + what);
  }
  std::span<const std::byte> body_;
  std::size_t at_ = 0;
};

}  // namespace

Buffer encode_key_values(const KeyValues& kv, std::int64_t prefix) {
  std::size_t size = sizeof prefix + sizeof(std::uint32_t);
  for (const auto& [k, v] : kv) size += sizeof k + sizeof(std::uint32_t) + v.size() * sizeof(double);
  Writer w(size);
  w.put(prefix);
  w.put(static_cast<std::uint32_t>(kv.size()));
  for (const auto& [k, v] : kv) {
    w.put(k);
    w.put(static_cast<std::uint32_t>(v.size()));
    w.put_bytes(v.data(), v.size() * sizeof(double));
  }
  return w.done();
}

KeyValues decode_key_values(std::span<const std::byte> body, std::int64_t& prefix) {
  Reader r(body);
  prefix = r.get<std::int64_t>("the header");
  const auto n = r.count(sizeof(Key) + sizeof(std::uint32_t), "a key count");
  KeyValues kv(n);
  for (auto& [k, v] : kv) {
    k = r.get<Key>("a key");
    v.resize(r.count(sizeof(double), "a value length"));
    r.copy(v.data(), v.size() * sizeof(double), "a value");
  }
  r.end();
  return kv;
}

Buffer encode_keys(std::span<const Key> keys, std::int64_t prefix) {
  Writer w(sizeof prefix + sizeof(std::uint32_t) + keys.size_bytes());
  w.put(prefix);
  w.put(static_cast<std::uint32_t>(keys.size()));
  w.put_bytes(keys.data(), keys.size_bytes());
  return w.done();
}

std::vector<Key> decode_keys(std::span<const std::byte> body, std::int64_t& prefix) {
  Reader r(body);
  prefix = r.get<std::int64_t>("the header");
  std::vector<Key> keys(r.count(sizeof(Key), "a key count"));
  r.copy(keys.data(), keys.size() * sizeof(Key), "the keys");
  r.end();
  return keys;
}

}  // namespace gyre::pipeline::ps
