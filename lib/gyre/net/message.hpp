// gyre/net/message.hpp — the unit the transport carries: a small typed header, metadata and a body.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "gyre/base/buffer.hpp"

namespace gyre::net {

// The transport does not interpret `type` or `tag`; the layers above own their meaning.
// `meta` holds a small encoded record (cereal, bounded); `body` the bulk payload, which moves
// through the inproc backend without a copy and goes out as a separate buffer over tcp.
struct Message {
  std::uint16_t type = 0;
  std::int32_t sender = -1;  // filled in by the transport
  std::uint64_t tag = 0;
  std::vector<std::byte> meta;
  Buffer body;
};

}  // namespace gyre::net
