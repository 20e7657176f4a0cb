// gyre/rotation/block_codec.cpp — block ↔ message, and the receiver's checks of a block against its plan.
#include "gyre/rotation/block_codec.hpp"

#include <algorithm>
#include <string>

#include "gyre/rotation/protocol.hpp"
#include "gyre/wire/body.hpp"
#include "gyre/wire/codec.hpp"

namespace gyre::rotation {
namespace {

std::string shape_text(std::uint64_t rows, std::uint64_t stride) {
  return stride == 0 ? std::to_string(rows) + " packed rows" : std::to_string(rows) + " rows of " + std::to_string(stride) + " floats";
}

}  // namespace

net::Message encode_block(model::Block block, std::uint64_t receiver_seq) {
  net::Message m;
  m.type = kBlockMessage;
  m.tag = block.id();
  m.meta = wire::encode(BlockMeta{block.id(), block.version(), block.rows(), block.stride(), receiver_seq});
  m.body = block.release_storage();
  // Floats or 32-bit counts (the slots are 4 bytes either way), little-endian on the wire: in
  // place, so a little-endian host still hands the payload over without touching it.
  wire::little_in_place(m.body.bytes(), 4);
  return m;
}

DecodedBlock decode_block(net::Message message, std::span<const model::BlockShape> layout) {
  const std::string from = " from rank " + std::to_string(message.sender);
  BlockMeta meta;
  try {
    meta = wire::decode<BlockMeta>(message.meta);
  } catch (const wire::DecodeError& e) {
    throw wire::DecodeError("malformed block record" + from + ": " + e.what());
  }
  const std::string block = "block " + std::to_string(meta.id) + from;
  if (meta.id >= layout.size())
    throw wire::DecodeError(block + " is not one of the " + std::to_string(layout.size()) + " blocks of the plan here");
  const model::BlockShape& want = layout[meta.id];
  if (meta.rows != want.rows || meta.stride != want.stride)
    throw wire::DecodeError(block + " has " + shape_text(meta.rows, meta.stride) + "; the plan here has " +
                            shape_text(want.rows, want.stride));
  // The shape is the plan's, so the product (or a packed block's bound) is one this rank
  // allocates itself.
  const std::size_t bytes = message.body.size();
  if (want.packed() ? bytes % 4 != 0 || bytes > want.max_bytes : bytes != want.rows * want.stride * sizeof(float))
    throw wire::DecodeError(block + " carries " + std::to_string(bytes) + " bytes for its " +
                            shape_text(want.rows, want.stride) +
                            (want.packed() ? " (whole 32-bit words, at most " + std::to_string(want.max_bytes) + ")" : ""));
  wire::little_in_place(message.body.bytes(), 4);
  return {model::Block(meta.id, meta.version, want, std::move(message.body)), meta.seq};
}

void check_arrival(const RotationSchedule& schedule, int receiver, std::uint64_t phases_started, int sender,
                   model::BlockId id, std::uint64_t seq) {
  const std::string block = "block " + std::to_string(id) + " from rank " + std::to_string(sender);
  const std::uint64_t per_phase = schedule.visits_per_phase();
  const std::uint64_t phase = seq / per_phase;
  const std::string visit = "visit " + std::to_string(seq) + " (phase " + std::to_string(phase) + ")";
  // The window comes first: the schedule is only evaluated for phases this worker can be in.
  if (phase > phases_started || phase + 1 < phases_started)
    throw wire::DecodeError(block + " is for " + visit + ", but " + std::to_string(phases_started) +
                            " phase(s) have started here");
  const auto index = static_cast<std::size_t>(seq % per_phase);
  if (index < static_cast<std::size_t>(schedule.blocks_per_worker()))
    throw wire::DecodeError(block + " is for " + visit + ", a first-step visit, whose blocks are held, not sent");
  const Visit expected = schedule.visits(receiver, phase).at(index);
  if (expected.block != id)
    throw wire::DecodeError(block + " is for " + visit + ", which is the visit of block " +
                            std::to_string(expected.block));
  const std::vector<int> ring = schedule.ring(phase);
  const auto at = static_cast<std::size_t>(std::find(ring.begin(), ring.end(), receiver) - ring.begin());
  const int predecessor = ring[(at + ring.size() - 1) % ring.size()];
  if (sender != predecessor)
    throw wire::DecodeError(block + " is for " + visit + ", but in that phase's ring it comes from rank " +
                            std::to_string(predecessor));
}

}  // namespace gyre::rotation
