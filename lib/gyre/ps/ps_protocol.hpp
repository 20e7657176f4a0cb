// gyre/ps/ps_protocol.hpp — the parameter server's messages: keyed values, reads and clocks, checked before any allocation.
#pragma once

#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "gyre/net/group.hpp"
#include "gyre/ps/ps_job.hpp"
#include "gyre/wire/channels.hpp"

namespace gyre::ps {

// Message types: the ps channel (0x40–). The server accepts kPush..kKeysReply as one range.
enum Message : std::uint16_t {
  kPush = wire::channels::kPs.at(0),      // worker → server: updates to fold in (body: key-values)
  kSet = wire::channels::kPs.at(1),       // worker → server: values to store as they are (body: key-values)
  kGet = wire::channels::kPs.at(2),       // worker → server: tag = request; body: the clock the reply must include, keys
  kGetReply = wire::channels::kPs.at(3),  // server → worker: tag = request; body: the server clock, key-values
  kClock = wire::channels::kPs.at(4),     // worker → server: tag = the clock the worker has completed
  kStop = wire::channels::kPs.at(5),      // worker → server: this worker is done
  kKeys = wire::channels::kPs.at(6),      // worker → server: tag = request; which keys do you hold?
  kKeysReply = wire::channels::kPs.at(7), // server → worker: tag = request; body: keys
  kHandOver = wire::channels::kPs.at(8),  // server s > 0 → server 0, across processes, at the end: body: its deferred reads, key-values
};

// Bodies (little-endian, wire/body.hpp). Every decoder checks each count and length against the
// bytes that remain before it allocates, and throws wire::DecodeError saying what was wrong (the
// caller names the sender).
Buffer encode_key_values(const KeyValues& kv, std::int64_t prefix);
// The key-values after an 8-byte prefix, returned in `prefix`.
KeyValues decode_key_values(std::span<const std::byte> body, std::int64_t& prefix);
Buffer encode_keys(std::span<const Key> keys, std::int64_t prefix);
std::vector<Key> decode_keys(std::span<const std::byte> body, std::int64_t& prefix);

}  // namespace gyre::ps
