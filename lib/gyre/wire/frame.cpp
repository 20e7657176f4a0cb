// gyre/wire/frame.cpp — frame header encoding and checks.
#include "gyre/wire/frame.hpp"

#include <cstring>

namespace gyre::wire {
namespace {

template <class T>
void put(std::array<std::byte, kFrameHeaderSize>& out, std::size_t at, T value) {
  std::memcpy(out.data() + at, &value, sizeof value);  // little-endian hosts only
}

template <class T>
T get(const std::array<std::byte, kFrameHeaderSize>& in, std::size_t at) {
  T value;
  std::memcpy(&value, in.data() + at, sizeof value);
  return value;
}

}  // namespace

std::array<std::byte, kFrameHeaderSize> encode_header(const FrameHeader& h) {
  std::array<std::byte, kFrameHeaderSize> out{};
  put(out, 0, kFrameMagic);
  put(out, 4, kProtocolVersion);
  put(out, 6, h.type);
  put(out, 8, h.sender);
  put(out, 12, h.meta_length);
  put(out, 16, h.tag);
  put(out, 24, h.body_length);
  put(out, 32, h.crc);
  put(out, 36, std::uint32_t{0});
  return out;
}

std::optional<FrameHeader> parse_header(const std::array<std::byte, kFrameHeaderSize>& bytes,
                                        const FrameLimits& limits, std::string& why) {
  if (get<std::uint32_t>(bytes, 0) != kFrameMagic) {
    why = "bad frame magic";
    return std::nullopt;
  }
  if (const auto v = get<std::uint16_t>(bytes, 4); v != kProtocolVersion) {
    why = "protocol version " + std::to_string(v) + ", expected " + std::to_string(kProtocolVersion);
    return std::nullopt;
  }
  if (get<std::uint32_t>(bytes, 36) != 0) {
    why = "reserved header bits set";
    return std::nullopt;
  }
  FrameHeader h;
  h.type = get<std::uint16_t>(bytes, 6);
  h.sender = get<std::int32_t>(bytes, 8);
  h.meta_length = get<std::uint32_t>(bytes, 12);
  h.tag = get<std::uint64_t>(bytes, 16);
  h.body_length = get<std::uint64_t>(bytes, 24);
  h.crc = get<std::uint32_t>(bytes, 32);
  if (h.meta_length > limits.max_meta) {
    why = "meta length " + std::to_string(h.meta_length) + " over the limit " + std::to_string(limits.max_meta);
    return std::nullopt;
  }
  if (h.body_length > limits.max_body) {
    why = "body length " + std::to_string(h.body_length) + " over the limit " + std::to_string(limits.max_body);
    return std::nullopt;
  }
  return h;
}

}  // namespace gyre::wire
