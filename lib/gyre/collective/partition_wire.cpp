// gyre/collective/partition_wire.cpp — encoding and checked decoding of partition lists and id lists.
#include "gyre/collective/partition_wire.hpp"

#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>

namespace gyre::collective {
namespace {

constexpr std::size_t kBodyHeader = 2 * sizeof(std::uint32_t);                      // count, element size
constexpr std::size_t kPartHeader = sizeof(std::uint32_t) + sizeof(std::uint64_t);  // id, elements

[[noreturn]] void malformed(int sender, const std::string& what) {
  throw std::runtime_error("partition collective: rank " + std::to_string(sender) +
                           " sent a malformed message: " + what);
}

// Sequential reads from a received body; every read is checked against what remains.
class Reader {
 public:
  Reader(std::span<const std::byte> body, int sender) : rest_(body), sender_(sender) {}

  template <class U>
  U read(const char* what) {
    if (rest_.size() < sizeof(U)) malformed(sender_, std::string("truncated at ") + what);
    U value;
    std::memcpy(&value, rest_.data(), sizeof(U));
    rest_ = rest_.subspan(sizeof(U));
    return value;
  }

  std::span<const std::byte> take(std::size_t n) {
    const auto out = rest_.first(n);
    rest_ = rest_.subspan(n);
    return out;
  }

  std::size_t remaining() const noexcept { return rest_.size(); }

 private:
  std::span<const std::byte> rest_;
  int sender_;
};

class Writer {
 public:
  explicit Writer(Buffer& body) : at_(body.data()) {}
  template <class U>
  void write(U value) {
    put(&value, sizeof(U));
  }
  void put(const void* p, std::size_t n) {
    if (n == 0) return;
    std::memcpy(at_, p, n);
    at_ += n;
  }

 private:
  std::byte* at_;
};

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
  Buffer body(size);
  Writer out(body);
  out.write(narrow_count(parts.size(), "partitions"));
  out.write(narrow_count(element_size, "bytes per element"));
  for (const auto& p : parts) {
    out.write(p.id);
    out.write(static_cast<std::uint64_t>(p.elements));
    out.put(p.bytes.data(), p.bytes.size());
  }
  return body;
}

std::vector<PartitionBytes> decode_partitions(std::span<const std::byte> body, std::size_t element_size, int sender) {
  Reader in(body, sender);
  const auto count = in.read<std::uint32_t>("the partition count");
  const auto sent_element_size = in.read<std::uint32_t>("the element size");
  if (sent_element_size != element_size)
    malformed(sender, "elements of " + std::to_string(sent_element_size) + " bytes where " +
                          std::to_string(element_size) + " were expected (members disagree on the call)");
  if (count > in.remaining() / kPartHeader)
    malformed(sender, std::to_string(count) + " partitions announced in " + std::to_string(in.remaining()) + " bytes");
  std::vector<PartitionBytes> parts;
  parts.reserve(count);
  for (std::uint32_t i = 0; i < count; ++i) {
    PartitionBytes p;
    p.id = in.read<std::uint32_t>("a partition id");
    const auto elements = in.read<std::uint64_t>("a partition length");
    if (!parts.empty() && p.id <= parts.back().id)
      malformed(sender, "partition " + std::to_string(p.id) + " follows partition " + std::to_string(parts.back().id));
    if (element_size != 0 && elements > in.remaining() / element_size)
      malformed(sender, "partition " + std::to_string(p.id) + " announces " + std::to_string(elements) +
                            " elements but only " + std::to_string(in.remaining()) + " bytes remain");
    p.elements = static_cast<std::size_t>(elements);
    p.bytes = in.take(p.elements * element_size);
    parts.push_back(p);
  }
  if (in.remaining() != 0) malformed(sender, std::to_string(in.remaining()) + " trailing bytes");
  return parts;
}

Buffer encode_partition_ids(std::span<const std::uint32_t> ids) {
  for (std::size_t i = 1; i < ids.size(); ++i)
    if (ids[i] <= ids[i - 1]) throw std::invalid_argument("encode_partition_ids: ids are not strictly increasing");
  Buffer body(ids.size_bytes());
  Writer(body).put(ids.data(), ids.size_bytes());
  return body;
}

std::vector<std::uint32_t> decode_partition_ids(std::span<const std::byte> body, int sender) {
  if (body.size() % sizeof(std::uint32_t) != 0)
    malformed(sender, "an id list of " + std::to_string(body.size()) + " bytes");
  std::vector<std::uint32_t> ids(body.size() / sizeof(std::uint32_t));
  if (!ids.empty()) std::memcpy(ids.data(), body.data(), body.size());
  for (std::size_t i = 1; i < ids.size(); ++i)
    if (ids[i] <= ids[i - 1])
      malformed(sender, "partition id " + std::to_string(ids[i]) + " follows " + std::to_string(ids[i - 1]));
  return ids;
}

}  // namespace gyre::collective
