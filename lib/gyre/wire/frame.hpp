// gyre/wire/frame.hpp — the fixed header of a frame on a byte stream, and its validation.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "gyre/base/export.hpp"

namespace gyre::wire {

// Little-endian, 40 bytes:
//   u32 magic "GYRF"   u16 protocol version   u16 message type
//   i32 sender rank    u32 meta length        u64 tag
//   u64 body length    u32 CRC-32C of meta ++ body    u32 reserved (0)
inline constexpr std::uint32_t kFrameMagic = 0x46525947;  // "GYRF"
// 2: connections open with the challenge-response handshake (net/handshake.hpp) instead of a
// hello carrying the token; the rendezvous registration carries the job's settings.
// 3: the failure notice is the runtime's (type 0x10: rank and cause in meta, the whole text in
// the body); message types come from the channel registry (wire/channels.hpp).
// 4: meta records are little-endian on every host (cereal's portable archive, one leading byte
// for the byte order); phase starts carry a payload; lock grants and releases may carry values.
inline constexpr std::uint16_t kProtocolVersion = 4;
inline constexpr std::size_t kFrameHeaderSize = 40;

struct FrameHeader {
  std::uint16_t type = 0;
  std::int32_t sender = -1;
  std::uint64_t tag = 0;
  std::uint32_t meta_length = 0;
  std::uint64_t body_length = 0;
  std::uint32_t crc = 0;
};

// Upper bounds checked before anything is allocated for a frame.
struct FrameLimits {
  std::uint32_t max_meta = 64 * 1024;
  std::uint64_t max_body = std::uint64_t{1} << 30;
};

GYRE_API std::array<std::byte, kFrameHeaderSize> encode_header(const FrameHeader& h);

// Parses and validates a header: magic, version, reserved bits, lengths within limits.
// Returns the header, or sets `why` and returns nullopt (the connection is then dropped).
GYRE_API std::optional<FrameHeader> parse_header(const std::array<std::byte, kFrameHeaderSize>& bytes,
                                                 const FrameLimits& limits, std::string& why);

}  // namespace gyre::wire
