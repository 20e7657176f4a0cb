// tests/fuzz/frame_fuzz.cpp — libFuzzer target: arbitrary bytes through the frame header and message decoders.
//
// Whatever a peer sends must be refused or decoded without a crash, an unchecked allocation
// or a read out of bounds; this feeds the same checks the tcp backend applies to a stream.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>

#include "gyre/cluster/settings.hpp"
#include "gyre/net/handshake.hpp"
#include "gyre/net/message.hpp"
#include "gyre/pipeline/block_codec.hpp"
#include "gyre/scheduler/protocol.hpp"
#include "gyre/wire/codec.hpp"
#include "gyre/wire/frame.hpp"

namespace {

template <class T>
void try_decode(std::span<const std::byte> bytes) {
  try {
    (void)gyre::wire::decode<T>(bytes);
  } catch (const gyre::wire::DecodeError&) {
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace gyre;
  const std::span<const std::byte> input(reinterpret_cast<const std::byte*>(data), size);
  // Every record type that crosses the wire, straight from the bytes.
  try_decode<scheduler::PhaseGo>(input);
  try_decode<scheduler::PhaseDone>(input);
  try_decode<scheduler::Failure>(input);
  try_decode<pipeline::BlockMeta>(input);
  try_decode<net::HelloRecord>(input);
  try_decode<net::ChallengeRecord>(input);
  try_decode<net::ProofRecord>(input);
  try {
    (void)cluster::decode_settings(input);
  } catch (const wire::DecodeError&) {
  }

  // A frame: header, then meta and body as the header announces them, within the limits the
  // backend uses by default (so a huge announced length is refused before any allocation).
  if (size < wire::kFrameHeaderSize) return 0;
  std::array<std::byte, wire::kFrameHeaderSize> header;
  std::memcpy(header.data(), data, header.size());
  std::string why;
  const wire::FrameLimits limits;
  const auto h = wire::parse_header(header, limits, why);
  if (!h) return 0;
  const std::size_t rest = size - wire::kFrameHeaderSize;
  if (h->meta_length > rest || h->body_length > rest - h->meta_length) return 0;  // a truncated frame
  net::Message m;
  m.type = h->type;
  m.meta.assign(input.begin() + static_cast<std::ptrdiff_t>(wire::kFrameHeaderSize),
                input.begin() + static_cast<std::ptrdiff_t>(wire::kFrameHeaderSize + h->meta_length));
  m.body = Buffer(static_cast<std::size_t>(h->body_length));
  if (!m.body.empty())
    std::memcpy(m.body.data(), data + wire::kFrameHeaderSize + h->meta_length, m.body.size());
  try {
    (void)pipeline::decode_block(std::move(m), 1u << 20);
  } catch (const wire::DecodeError&) {
  } catch (const std::invalid_argument&) {
  }
  return 0;
}
