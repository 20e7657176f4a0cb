// scheduler/lock_protocol.cpp — key lists as flat little-endian arrays in a message body.
#include "gyre/scheduler/lock_protocol.hpp"

#include <string>

#include "gyre/wire/body.hpp"

namespace gyre::scheduler {

Buffer encode_keys(std::span<const LockKey> keys) { return wire::Writer(keys.size_bytes()).put_array(keys).finish(); }

std::vector<LockKey> decode_keys(const Buffer& body, std::size_t max_keys) {
  return wire::Reader(body.bytes()).get_rest<LockKey>("key list", max_keys);
}

std::string key_list(std::span<const LockKey> keys, std::size_t shown) {
  std::string out = "{";
  for (std::size_t i = 0; i < keys.size() && i < shown; ++i) out += (i ? "," : "") + std::to_string(keys[i]);
  if (keys.size() > shown) return out + ",…} (" + std::to_string(keys.size()) + " keys)";
  return out + "}";
}

}  // namespace gyre::scheduler
