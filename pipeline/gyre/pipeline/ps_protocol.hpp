// gyre/pipeline/ps_protocol.hpp — the parameter server's messages: keyed values, reads and clocks, checked before any allocation.
#pragma once

#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "gyre/net/message.hpp"

namespace gyre::pipeline::ps {

using Key = std::uint64_t;
using Value = std::vector<double>;
using KeyValues = std::vector<std::pair<Key, Value>>;

// Message types (scheduler protocol range 0x40–0x4F).
enum Message : std::uint16_t {
  kPush = 0x40,      // worker → server: updates to fold in (body: key-values)
  kSet = 0x41,       // worker → server: values to store as they are (body: key-values)
  kGet = 0x42,       // worker → server: tag = request; body: the clock the reply must include, keys
  kGetReply = 0x43,  // server → worker: tag = request; body: the server clock, key-values
  kClock = 0x44,     // worker → server: tag = the clock the worker has completed
  kStop = 0x45,      // worker → server: this worker is done
  kKeys = 0x46,      // worker → server: tag = request; which keys do you hold?
  kKeysReply = 0x47, // server → worker: tag = request; body: keys
  kHandOver = 0x48,  // server s > 0 → server 0, across processes, at the end: body: its deferred reads, key-values
};

// Bodies (little-endian, wire/body.hpp). Every decoder checks each count and length against the
// bytes that remain before it allocates, and throws wire::DecodeError saying what was wrong (the
// caller names the sender).
Buffer encode_key_values(const KeyValues& kv, std::int64_t prefix);
// The key-values after an 8-byte prefix, returned in `prefix`.
KeyValues decode_key_values(std::span<const std::byte> body, std::int64_t& prefix);
Buffer encode_keys(std::span<const Key> keys, std::int64_t prefix);
std::vector<Key> decode_keys(std::span<const std::byte> body, std::int64_t& prefix);

}  // namespace gyre::pipeline::ps
