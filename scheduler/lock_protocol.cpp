// scheduler/lock_protocol.cpp — key lists as flat arrays in a message body.
#include "gyre/scheduler/lock_protocol.hpp"

#include <cstring>
#include <string>

#include "gyre/wire/codec.hpp"

namespace gyre::scheduler {

Buffer encode_keys(std::span<const LockKey> keys) {
  Buffer body(keys.size_bytes());
  if (!keys.empty()) std::memcpy(body.data(), keys.data(), keys.size_bytes());
  return body;
}

std::vector<LockKey> decode_keys(const Buffer& body, std::size_t max_keys) {
  if (body.size() % sizeof(LockKey) != 0)
    throw wire::DecodeError("key list of " + std::to_string(body.size()) + " bytes is not a whole number of keys");
  const std::size_t n = body.size() / sizeof(LockKey);
  if (n > max_keys)
    throw wire::DecodeError("key list of " + std::to_string(n) + " keys where at most " + std::to_string(max_keys) +
                            " exist");
  std::vector<LockKey> keys(n);
  if (n > 0) std::memcpy(keys.data(), body.data(), body.size());
  return keys;
}

std::string key_list(std::span<const LockKey> keys, std::size_t shown) {
  std::string out = "{";
  for (std::size_t i = 0; i < keys.size() && i < shown; ++i) out += (i ? "," : "") + std::to_string(keys[i]);
  if (keys.size() > shown) return out + ",…} (" + std::to_string(keys.size()) + " keys)";
  return out + "}";
}

}  // namespace gyre::scheduler
