// gyre/rotation/block_codec.hpp — a rotating block as a transport message and back, checked against the receiver's plan.
#pragma once

#include <cstdint>
#include <span>

#include "gyre/model/block.hpp"
#include "gyre/net/group.hpp"
#include "gyre/rotation/rotation_schedule.hpp"

namespace gyre::rotation {

// The block's floats (or a packed block's 32-bit words) travel as the message body (moved, not copied; little-endian, converted in
// place on a big-endian host); the shape, version and the receiver's sequence number travel as
// a small fixed-size record.
struct BlockMeta {
  std::uint32_t id = 0;
  std::uint64_t version = 0;
  std::uint64_t rows = 0;
  std::uint64_t stride = 0;
  std::uint64_t seq = 0;  // position of this visit in the receiver's sequence
  template <class Archive>
  void serialize(Archive& ar) { ar(id, version, rows, stride, seq); }
};

net::Message encode_block(model::Block block, std::uint64_t receiver_seq);

struct DecodedBlock {
  model::Block block;
  std::uint64_t seq = 0;
};
// `layout` is the receiver's plan: the shape of every block, by id. Throws wire::DecodeError,
// naming the sender, when the record is malformed, the id is not one of the plan's, the shape
// is not the one the plan gives that id, or the body does not hold exactly that shape.
DecodedBlock decode_block(net::Message message, std::span<const model::BlockShape> layout);

// Checks that block `id` from rank `sender` may arrive at worker `receiver` for visit `seq`,
// once `phases_started` phases have started there: the visit must be of the phase running or
// the next (a predecessor may be one phase ahead, never more; so the sequencer's window stays
// bounded), past the phase's first step (whose blocks are held, not received), the schedule's
// visit of that very block, and the sender must be the receiver's ring predecessor in that
// phase. Throws wire::DecodeError naming the sender otherwise.
void check_arrival(const RotationSchedule& schedule, int receiver, std::uint64_t phases_started, int sender,
                   model::BlockId id, std::uint64_t seq);

}  // namespace gyre::rotation
