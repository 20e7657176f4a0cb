// gyre/collective/partition_wire.hpp — the flat message format of partition collectives, checked when decoded.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "gyre/base/buffer.hpp"

namespace gyre::collective {

// One partition as raw elements: a view into a table or into a received message body, which
// must outlive it. Received bytes need not be aligned for the element type.
struct PartitionBytes {
  std::uint32_t id = 0;
  std::size_t elements = 0;
  std::span<const std::byte> bytes;
};

// Partitions as one message body (wire/body.hpp): u32 count, u32 element size, then per
// partition u32 id, u64 element count and the elements, all little-endian. `bytes` are in
// host order when encoded and, once decoded, as they arrived (receive_partitions converts them).
// Ids must be strictly increasing, as a std::map keeps them.
Buffer encode_partitions(std::span<const PartitionBytes> parts, std::size_t element_size);

// The partitions in a body that member rank `sender` sent. Every count and length is checked
// against the bytes that remain before anything is sized from it; a body that is truncated,
// has trailing bytes, another element size or ids out of order throws wire::DecodeError (a
// std::runtime_error) naming the sender.
std::vector<PartitionBytes> decode_partitions(std::span<const std::byte> body, std::size_t element_size, int sender);

// Partition ids alone (what a pull asks an owner for): u32 each, strictly increasing.
Buffer encode_partition_ids(std::span<const std::uint32_t> ids);
std::vector<std::uint32_t> decode_partition_ids(std::span<const std::byte> body, int sender);

}  // namespace gyre::collective
