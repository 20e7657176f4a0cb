// gyre/wire/codec.hpp — cereal's portable (little-endian) binary encoding of small value records to and from byte vectors.
#pragma once

#include <cereal/archives/portable_binary.hpp>

#include <cstddef>
#include <istream>
#include <span>
#include <sstream>
#include <stdexcept>
#include <streambuf>
#include <string>
#include <vector>

#include "gyre/base/export.hpp"
#include "gyre/wire/body.hpp"

namespace gyre::wire {

namespace detail {
// Reads straight from the received bytes: no copy, and cereal cannot read past the end.
class SpanBuf : public std::streambuf {
 public:
  explicit SpanBuf(std::span<const std::byte> bytes) {
    char* p = const_cast<char*>(reinterpret_cast<const char*>(bytes.data()));
    setg(p, p, p + bytes.size());
  }
  std::size_t remaining() const { return static_cast<std::size_t>(egptr() - gptr()); }
};
}  // namespace detail

// Records are little-endian whatever the host (cereal's portable archive: one leading byte
// names the byte order, and a reader on a host of the other order swaps), like every body.
template <class T>
std::vector<std::byte> encode(const T& value) {
  std::ostringstream out(std::ios::binary);
  {
    cereal::PortableBinaryOutputArchive archive(out);
    archive(value);
  }
  const std::string s = std::move(out).str();
  const auto* p = reinterpret_cast<const std::byte*>(s.data());
  return {p, p + s.size()};
}

// Decodes a record that must use every byte. Only use with records whose fields have fixed
// sizes (no strings or vectors): cereal sizes containers from the stream before it reads them,
// so variable-size fields would let a peer choose an allocation.
template <class T>
T decode(std::span<const std::byte> bytes) {
  detail::SpanBuf buf(bytes);
  std::istream in(&buf);
  T value{};
  try {
    cereal::PortableBinaryInputArchive archive(in);
    archive(value);
  } catch (const cereal::Exception& e) {
    throw DecodeError(std::string("truncated record: ") + e.what());
  }
  if (buf.remaining() != 0) throw DecodeError("record has trailing bytes");
  return value;
}

}  // namespace gyre::wire
