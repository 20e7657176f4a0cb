// gyre/ps/ps_protocol.cpp — flat little-endian bodies of the parameter server's messages.
#include "gyre/ps/ps_protocol.hpp"

#include <string>

#include "gyre/wire/body.hpp"

namespace gyre::ps {
namespace {

// Every error names the protocol; the caller adds the sender.
const char* const kContext = "parameter server message: ";

}  // namespace

Buffer encode_key_values(const KeyValues& kv, std::int64_t prefix) {
  std::size_t size = sizeof prefix + sizeof(std::uint32_t);
  for (const auto& [k, v] : kv) size += sizeof k + sizeof(std::uint32_t) + v.size() * sizeof(double);
  wire::Writer w(size);
  w.put(prefix).put(static_cast<std::uint32_t>(kv.size()));
  for (const auto& [k, v] : kv) w.put(k).put(static_cast<std::uint32_t>(v.size())).put_array<double>(v);
  return w.finish();
}

KeyValues decode_key_values(std::span<const std::byte> body, std::int64_t& prefix) {
  wire::Reader r(body, kContext);
  prefix = r.get<std::int64_t>("the header");
  KeyValues kv(r.count(sizeof(Key) + sizeof(std::uint32_t), "a key count"));
  for (auto& [k, v] : kv) {
    k = r.get<Key>("a key");
    v = r.get_array<double>(r.count(sizeof(double), "a value length"), "a value");
  }
  r.finish();
  return kv;
}

Buffer encode_keys(std::span<const Key> keys, std::int64_t prefix) {
  wire::Writer w(sizeof prefix + sizeof(std::uint32_t) + keys.size_bytes());
  w.put(prefix).put(static_cast<std::uint32_t>(keys.size())).put_array(keys);
  return w.finish();
}

std::vector<Key> decode_keys(std::span<const std::byte> body, std::int64_t& prefix) {
  wire::Reader r(body, kContext);
  prefix = r.get<std::int64_t>("the header");
  auto keys = r.get_array<Key>(r.count(sizeof(Key), "a key count"), "the keys");
  r.finish();
  return keys;
}

}  // namespace gyre::ps
