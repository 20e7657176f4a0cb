// pipeline/block_codec.cpp — block ↔ message.
#include "gyre/pipeline/block_codec.hpp"

#include <string>

#include "gyre/scheduler/protocol.hpp"
#include "gyre/wire/codec.hpp"

namespace gyre::pipeline {

net::Message encode_block(model::Block block, std::uint64_t receiver_seq) {
  net::Message m;
  m.type = scheduler::kBlockMessage;
  m.tag = block.id();
  m.meta = wire::encode(BlockMeta{block.id(), block.version(), block.rows(), block.stride(), receiver_seq});
  m.body = block.release_storage();
  return m;
}

DecodedBlock decode_block(net::Message message, std::uint32_t max_blocks) {
  const auto meta = wire::decode<BlockMeta>(message.meta);
  if (meta.id >= max_blocks) throw wire::DecodeError("block id " + std::to_string(meta.id) + " out of range");
  if (meta.stride == 0 || meta.stride % model::kRowAlign != 0 ||
      meta.rows > message.body.size() / sizeof(float) / meta.stride ||
      meta.rows * meta.stride * sizeof(float) != message.body.size())
    throw wire::DecodeError("block " + std::to_string(meta.id) + " payload does not match its shape");
  return {model::Block(meta.id, meta.version, meta.rows, meta.stride, std::move(message.body)), meta.seq};
}

}  // namespace gyre::pipeline
