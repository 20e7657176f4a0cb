// gyre/collective/partition_wire.cpp — encoding and checked decoding of partition lists and id lists.
#include "gyre/collective/partition_wire.hpp"

#include <limits>
#include <stdexcept>
#include <string>

#include "gyre/wire/body.hpp"

namespace gyre::collective {
namespace {

constexpr std::size_t kBodyHeader = 2 * sizeof(std::uint32_t);                      // count, element size
constexpr std::size_t kPartHeader = sizeof(std::uint32_t) + sizeof(std::uint64_t);  // id, elements

std::string context(int sender) {
  return "partition collective: rank " + std::to_string(sender) + " sent a malformed message: ";
}

std::uint32_t narrow_count(std::size_t n, const char* what) {
  if (n > std::numeric_limits<std::uint32_t>::max())
    throw std::length_error(std::string("partition collective: too many ") + what + " for one message");
  return static_cast<std::uint32_t>(n);
}

}  // namespace

Buffer encode_partitions(std::span<const PartitionBytes> parts, std::size_t element_size) {
  std::size_t size = kBodyHeader;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    if (i > 0 && parts[i].id <= parts[i - 1].id)
      throw std::invalid_argument("encode_partitions: ids are not strictly increasing");
    if (parts[i].bytes.size() != parts[i].elements * element_size)
      throw std::invalid_argument("encode_partitions: partition bytes disagree with its element count");
    size += kPartHeader + parts[i].bytes.size();
  }
  wire::Writer out(size);
  out.put(narrow_count(parts.size(), "partitions")).put(narrow_count(element_size, "bytes per element"));
  for (const auto& p : parts) out.put(p.id).put(static_cast<std::uint64_t>(p.elements)).put_values(p.bytes, element_size);
  return out.finish();
}

std::vector<PartitionBytes> decode_partitions(std::span<const std::byte> body, std::size_t element_size, int sender) {
  wire::Reader in(body, context(sender));
  const auto count = in.get<std::uint32_t>("the partition count");
  const auto sent_element_size = in.get<std::uint32_t>("the element size");
  if (sent_element_size != element_size)
    in.fail("elements of " + std::to_string(sent_element_size) + " bytes where " + std::to_string(element_size) +
            " + were expected (members disagree on the call)");
  if (count > in.remaining() / kPartHeader)
    in.fail(std::to_string(count) + " partitions announced in " + std::to_string(in.remaining()) + " bytes");
  std::vector<PartitionBytes> parts;
  parts.reserve(count);
  for (std::uint32_t i = 0; i < count; ++i) {
    PartitionBytes p;
    p.id = in.get<std::uint32_t>("a partition id");
    const auto elements = in.get<std::uint64_t>("a partition length");
    if (!parts.empty() && p.id <= parts.back().id)
      in.fail("partition " + std::to_string(p.id) + " follows partition " + std::to_string(parts.back().id));
    if (element_size != 0 && elements > in.remaining() / element_size)
      in.fail("partition " + std::to_string(p.id) + " announces " + std::to_string(elements) + " elements but only " + std::to_string(in.remaining()) + " bytes remain");
    p.elements = static_cast<std::size_t>(elements);
    p.bytes = in.take(p.elements * element_size, "a partition's elements");
    parts.push_back(p);
  }
  in.finish();
  return parts;
}

Buffer encode_partition_ids(std::span<const std::uint32_t> ids) {
  for (std::size_t i = 1; i < ids.size(); ++i)
    if (ids[i] <= ids[i - 1]) throw std::invalid_argument("encode_partition_ids: ids are not strictly increasing");
  return wire::Writer(ids.size_bytes()).put_array(ids).finish();
}

std::vector<std::uint32_t> decode_partition_ids(std::span<const std::byte> body, int sender) {
  wire::Reader in(body, context(sender));
  const auto ids = in.get_rest<std::uint32_t>("an id list");
  for (std::size_t i = 1; i < ids.size(); ++i)
    if (ids[i] <= ids[i - 1])
      in.fail("partition id " + std::to_string(ids[i]) + " follows " + std::to_string(ids[i - 1]));
  return ids;
}

}  // namespace gyre::collective
