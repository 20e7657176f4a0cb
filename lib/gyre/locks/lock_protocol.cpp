// gyre/locks/lock_protocol.cpp — key lists as flat little-endian arrays in a message body.
#include "gyre/locks/lock_protocol.hpp"

#include <string>

#include "gyre/wire/body.hpp"

namespace gyre::locks {

Buffer encode_keys(std::span<const LockKey> keys) { return wire::Writer(keys.size_bytes()).put_array(keys).finish(); }

std::vector<LockKey> decode_keys(const Buffer& body, std::size_t max_keys) {
  return wire::Reader(body.bytes()).get_rest<LockKey>("key list", max_keys);
}

net::Message encode_value(LockKey key, Buffer value, std::uint64_t tag) {
  net::Message m;
  m.type = kLockValue;
  m.tag = tag;
  m.meta.resize(sizeof(LockKey));
  wire::Writer(std::span<std::byte>(m.meta)).put(key).finish();
  m.body = std::move(value);
  return m;
}

LockKey decode_value_key(const net::Message& m, std::uint32_t keys) {
  wire::Reader meta(std::span<const std::byte>(m.meta), "lock value from rank " + std::to_string(m.sender) + ": ");
  const auto key = meta.get<LockKey>("key");
  meta.finish();
  if (key >= keys) meta.fail("key " + std::to_string(key) + " is past the " + std::to_string(keys) + " keys");
  return key;
}

std::string key_list(std::span<const LockKey> keys, std::size_t shown) {
  std::string out = "{";
  for (std::size_t i = 0; i < keys.size() && i < shown; ++i) out += (i ? "," : "") + std::to_string(keys[i]);
  if (keys.size() > shown) return out + ",…} (" + std::to_string(keys.size()) + " keys)";
  return out + "}";
}

}  // namespace gyre::locks
