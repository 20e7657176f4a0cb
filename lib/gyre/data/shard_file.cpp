// gyre/data/shard_file.cpp — writes and validates binary ratings shard files.
#include "gyre/data/shard_file.hpp"

#include <bit>
#include <cerrno>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>

#include "gyre/base/atomic_file.hpp"
#include "gyre/base/crc32c.hpp"
#include "gyre/base/input_error.hpp"

namespace gyre::data {
namespace {

// Records are written as the in-memory Rating array, which is the documented layout only on
// little-endian hosts with no padding in Rating.
static_assert(std::endian::native == std::endian::little, "shard files are little-endian");
static_assert(sizeof(Rating) == 12 && offsetof(Rating, item) == 4 && offsetof(Rating, value) == 8);

constexpr char kMagic[8] = {'G', 'Y', 'R', 'E', 'S', 'H', 'R', 'D'};
constexpr std::uint32_t kKindRatings = 1;
constexpr std::size_t kHeaderSize = 40;

struct Header {
  std::uint32_t version = kShardVersion;
  std::uint32_t kind = kKindRatings;
  std::uint64_t count = 0;
  std::uint32_t users = 0;
  std::uint32_t items = 0;
  std::uint32_t checksum = 0;
};

template <typename T>
void put(unsigned char*& p, T value) {
  std::memcpy(p, &value, sizeof value);
  p += sizeof value;
}

template <typename T>
T get(const unsigned char*& p) {
  T value;
  std::memcpy(&value, p, sizeof value);
  p += sizeof value;
  return value;
}

std::string hex(std::uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%08x", v);
  return buf;
}

// Magic bytes of a foreign file may be binary; show them printable in the message.
std::string printable(const unsigned char* bytes, std::size_t n) {
  std::string s;
  for (std::size_t i = 0; i < n; ++i) s.push_back(bytes[i] >= 0x20 && bytes[i] < 0x7f ? char(bytes[i]) : '?');
  return s;
}

}  // namespace

void write_ratings_shard(const std::filesystem::path& file, const RatingsSet& shard) {
  unsigned char header[kHeaderSize] = {};
  unsigned char* p = header;
  std::memcpy(p, kMagic, sizeof kMagic);
  p += sizeof kMagic;
  const std::size_t bytes = shard.ratings.size() * sizeof(Rating);
  put<std::uint32_t>(p, kShardVersion);
  put<std::uint32_t>(p, kKindRatings);
  put<std::uint64_t>(p, shard.ratings.size());
  put<std::uint32_t>(p, shard.users);
  put<std::uint32_t>(p, shard.items);
  put<std::uint32_t>(p, crc32c(shard.ratings.data(), bytes));
  put<std::uint32_t>(p, 0);

  AtomicFile out(file, std::ios::binary);
  out.stream().write(reinterpret_cast<const char*>(header), kHeaderSize);
  out.stream().write(reinterpret_cast<const char*>(shard.ratings.data()), static_cast<std::streamsize>(bytes));
  out.commit();
}

RatingsSet read_ratings_shard(const std::filesystem::path& file) {
  std::error_code ec;
  if (std::filesystem::is_directory(file, ec)) throw InputError(file, 0, "a readable shard file", "a directory");
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> in(std::fopen(file.c_str(), "rb"), &std::fclose);
  if (!in) throw InputError(file, 0, "a readable shard file", std::strerror(errno));
  const std::uintmax_t size = std::filesystem::file_size(file, ec);
  if (ec) throw InputError(file, 0, "a readable shard file", ec.message());

  unsigned char header[kHeaderSize];
  if (size < kHeaderSize || std::fread(header, 1, kHeaderSize, in.get()) != kHeaderSize)
    throw InputError(file, 0, "a shard header of " + std::to_string(kHeaderSize) + " bytes",
                     std::to_string(size) + " bytes in the file");
  if (std::memcmp(header, kMagic, sizeof kMagic) != 0)
    throw InputError(file, 0, "shard magic \"GYRESHRD\"", printable(header, sizeof kMagic));
  const unsigned char* p = header + sizeof kMagic;
  Header h;
  h.version = get<std::uint32_t>(p);
  h.kind = get<std::uint32_t>(p);
  h.count = get<std::uint64_t>(p);
  h.users = get<std::uint32_t>(p);
  h.items = get<std::uint32_t>(p);
  h.checksum = get<std::uint32_t>(p);
  if (h.version != kShardVersion)
    throw InputError(file, 0, "shard format version " + std::to_string(kShardVersion), std::to_string(h.version));
  if (h.kind != kKindRatings)
    throw InputError(file, 0, "shard kind " + std::to_string(kKindRatings) + " (ratings)", std::to_string(h.kind));
  // The size check comes before any allocation, so a corrupt count cannot ask for terabytes.
  const std::uintmax_t records_bytes = size - kHeaderSize;
  if (h.count > records_bytes / sizeof(Rating) || records_bytes != h.count * sizeof(Rating))
    throw InputError(file, 0,
                     std::to_string(kHeaderSize + h.count * sizeof(Rating)) + " bytes for " +
                         std::to_string(h.count) + " records",
                     std::to_string(size) + " bytes");

  RatingsSet set;
  set.users = h.users;
  set.items = h.items;
  set.ratings.resize(h.count);
  const std::size_t bytes = set.ratings.size() * sizeof(Rating);
  if (std::fread(set.ratings.data(), 1, bytes, in.get()) != bytes)
    throw InputError(file, 0, "a readable shard file", "a short read");
  const std::uint32_t crc = crc32c(set.ratings.data(), bytes);
  if (crc != h.checksum) throw InputError(file, 0, "records checksum " + hex(h.checksum), hex(crc));
  for (std::size_t i = 0; i < set.ratings.size(); ++i) {
    const Rating& r = set.ratings[i];
    if (r.user >= set.users || r.item >= set.items)
      throw InputError(file, 0,
                       "ids within the header's id space " + std::to_string(set.users) + "x" +
                           std::to_string(set.items),
                       "record " + std::to_string(i) + ": " + std::to_string(r.user) + " " + std::to_string(r.item));
  }
  return set;
}

}  // namespace gyre::data
