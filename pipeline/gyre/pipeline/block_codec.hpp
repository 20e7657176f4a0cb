// gyre/pipeline/block_codec.hpp — a rotating block as a transport message and back.
#pragma once

#include <cstdint>

#include "gyre/model/block.hpp"
#include "gyre/net/message.hpp"

namespace gyre::pipeline {

// The block's floats travel as the message body (moved, not copied); the shape, version and
// the receiver's sequence number travel as a small fixed-size record.
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
// Throws wire::DecodeError when the record is malformed or the body does not match the shape.
DecodedBlock decode_block(net::Message message, std::uint32_t max_blocks);

}  // namespace gyre::pipeline
