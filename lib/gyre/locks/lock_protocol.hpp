// gyre/locks/lock_protocol.hpp — messages between the lock service and its clients, and the key-list codec.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "gyre/base/buffer.hpp"
#include "gyre/net/group.hpp"
#include "gyre/wire/channels.hpp"

namespace gyre::locks {

// Keys name what is locked: block ids, or any integers in [0, keys) the job agrees on.
using LockKey = std::uint32_t;

// The lock channel (0x50–).
enum LockMessageType : std::uint16_t {
  kLockAcquire = wire::channels::kLock.at(0),   // client → service: tag = request id, meta = LockRequest, body = keys
  kLockGrant = wire::channels::kLock.at(1),     // service → client: tag = request id, body = the keys now held
  kLockNoneFree = wire::channels::kLock.at(2),  // service → client: tag = request id; a no-wait request found nothing free
  kLockRelease = wire::channels::kLock.at(3),   // client → service: body = keys; no answer unless it is wrong
  kLockFinish = wire::channels::kLock.at(4),    // client → service: no more requests from this rank
  kLockStop = wire::channels::kLock.at(5),      // service → client, once per client: the service is done, no more grants
  kLockAbort = wire::channels::kLock.at(6),     // client → service: meta = Failure; the client gave up, fail the job
  kLockWake = wire::channels::kLock.at(7),      // service → itself: stop() was called (so run() needs no polling)
  // The value a key guards (see LockService): service → client, one per granted key just before
  // the grant (tag = request id); client → service, one per key just before the release that
  // hands it back. meta = the key (u32 little-endian), body = the value.
  kLockValue = wire::channels::kLock.at(8),
};

enum class LockMode : std::uint8_t {
  kAll = 0,  // every listed key, all at once
  kAny = 1,  // `count` of the listed candidates, the first free ones in list order
};

enum class LockWait : std::uint8_t {
  kUntilFree = 0,  // queue until the request can be granted
  kNoWait = 1,     // answer kLockNoneFree if it cannot be granted now
};

struct LockRequest {
  std::uint8_t mode = 0;   // LockMode
  std::uint8_t wait = 0;   // LockWait
  std::uint32_t count = 0; // kAny: how many of the candidates; kAll: the number of keys
  template <class Archive>
  void serialize(Archive& ar) { ar(mode, wait, count); }
};

// Keys travel as a flat little-endian array in the body: no size field a peer could inflate.
Buffer encode_keys(std::span<const LockKey> keys);

// The keys in `body`; throws wire::DecodeError, before allocating, when the body is not a whole
// number of keys or holds more than `max_keys` of them.
std::vector<LockKey> decode_keys(const Buffer& body, std::size_t max_keys);

// A kLockValue message, and the key it carries; decoding throws wire::DecodeError when the meta
// is not one key below `keys`.
net::Message encode_value(LockKey key, Buffer value, std::uint64_t tag = 0);
LockKey decode_value_key(const net::Message& m, std::uint32_t keys);

// "{3,5,8}" for error messages; long lists are cut after `shown` keys ("{0,1,…} (40 keys)").
std::string key_list(std::span<const LockKey> keys, std::size_t shown = 8);

}  // namespace gyre::locks
