// gyre/data/shard_file.cpp — writes and validates binary shard files (ratings and corpus kinds share the header code).
#include "gyre/data/shard_file.hpp"

#include <bit>
#include <cmath>
#include <cerrno>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <initializer_list>
#include <limits>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "gyre/base/crc32c.hpp"
#include "gyre/base/input_error.hpp"
#include "gyre/base/output_file.hpp"

namespace gyre::data {
namespace {

// Records are written as in-memory arrays, which is the documented layout only on
// little-endian hosts with no padding in Rating.
static_assert(std::endian::native == std::endian::little, "shard files are little-endian");
static_assert(sizeof(Rating) == 12 && offsetof(Rating, item) == 4 && offsetof(Rating, value) == 8);

constexpr char kMagic[8] = {'G', 'Y', 'R', 'E', 'S', 'H', 'R', 'D'};
constexpr std::size_t kHeaderSize = 40;
constexpr std::size_t kDocEntrySize = 12;  // u64 doc id + u32 token count, packed
constexpr std::size_t kRowEntrySize = 20;  // u64 sample id + u32 nnz + f64 y, packed
constexpr std::size_t kPairSize = 12;      // u32 column + f64 value, packed

enum Kind : std::uint32_t { kKindRatings = 1, kKindCorpus = 2, kKindRows = 3 };

const char* kind_name(Kind kind) {
  return kind == kKindRatings ? "ratings" : kind == kKindCorpus ? "corpus" : "rows";
}

struct Header {
  std::uint32_t version = kShardVersion;
  std::uint32_t kind = 0;
  std::uint64_t count = 0;
  std::uint32_t space[2] = {0, 0};
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

// The corpus's per-document table in file layout; the writer and the checksum both use it.
std::vector<unsigned char> doc_table(const Corpus& c) {
  std::vector<unsigned char> table(c.docs() * kDocEntrySize);
  unsigned char* p = table.data();
  for (std::uint64_t d = 0; d < c.docs(); ++d) {
    const std::uint64_t tokens = c.doc_begin[d + 1] - c.doc_begin[d];
    if (tokens > std::numeric_limits<std::uint32_t>::max())
      throw std::invalid_argument("corpus shard: document " + std::to_string(c.doc_ids[d]) + " has over 2^32 tokens");
    put<std::uint64_t>(p, c.doc_ids[d]);
    put<std::uint32_t>(p, static_cast<std::uint32_t>(tokens));
  }
  return table;
}

// The regression set's per-row table and its (column, value) pairs in file layout; the writer
// and the checksum both use them.
std::vector<unsigned char> row_table(const RegressionSet& s) {
  std::vector<unsigned char> table(s.samples() * kRowEntrySize);
  unsigned char* p = table.data();
  for (std::uint64_t i = 0; i < s.samples(); ++i) {
    const std::uint64_t nnz = s.row_begin[i + 1] - s.row_begin[i];
    if (nnz > std::numeric_limits<std::uint32_t>::max())
      throw std::invalid_argument("row shard: sample " + std::to_string(s.sample_ids[i]) + " has over 2^32 non-zeros");
    put<std::uint64_t>(p, s.sample_ids[i]);
    put<std::uint32_t>(p, static_cast<std::uint32_t>(nnz));
    put<double>(p, s.y[i]);
  }
  return table;
}

std::vector<unsigned char> pair_table(const RegressionSet& s) {
  std::vector<unsigned char> table(s.nnz() * kPairSize);
  unsigned char* p = table.data();
  for (std::uint64_t k = 0; k < s.nnz(); ++k) {
    put<std::uint32_t>(p, s.cols[k]);
    put<double>(p, s.values[k]);
  }
  return table;
}

void write_shard(const std::filesystem::path& file, const Header& h,
                 std::initializer_list<std::span<const unsigned char>> records) {
  unsigned char header[kHeaderSize] = {};
  unsigned char* p = header;
  std::memcpy(p, kMagic, sizeof kMagic);
  p += sizeof kMagic;
  put<std::uint32_t>(p, kShardVersion);
  put<std::uint32_t>(p, h.kind);
  put<std::uint64_t>(p, h.count);
  put<std::uint32_t>(p, h.space[0]);
  put<std::uint32_t>(p, h.space[1]);
  put<std::uint32_t>(p, h.checksum);
  put<std::uint32_t>(p, 0);

  OutputFile out(file);
  out.stream().write(reinterpret_cast<const char*>(header), kHeaderSize);
  for (const auto part : records)
    out.stream().write(reinterpret_cast<const char*>(part.data()), static_cast<std::streamsize>(part.size()));
  out.commit();
}

template <typename T>
std::span<const unsigned char> bytes_of(const std::vector<T>& v) {
  return {reinterpret_cast<const unsigned char*>(v.data()), v.size() * sizeof(T)};
}

// An open shard file whose header has been checked (magic, version, kind); the caller checks
// the size against the counts before it allocates, then reads the records.
class ShardReader {
 public:
  ShardReader(const std::filesystem::path& file, Kind kind) : file_(file), in_(nullptr, &std::fclose) {
    std::error_code ec;
    if (std::filesystem::is_directory(file, ec)) throw InputError(file, 0, "a readable shard file", "a directory");
    in_.reset(std::fopen(file.c_str(), "rb"));
    if (!in_) throw InputError(file, 0, "a readable shard file", std::strerror(errno));
    size_ = std::filesystem::file_size(file, ec);
    if (ec) throw InputError(file, 0, "a readable shard file", ec.message());

    unsigned char header[kHeaderSize];
    if (size_ < kHeaderSize || std::fread(header, 1, kHeaderSize, in_.get()) != kHeaderSize)
      throw InputError(file, 0, "a shard header of " + std::to_string(kHeaderSize) + " bytes",
                       std::to_string(size_) + " bytes in the file");
    if (std::memcmp(header, kMagic, sizeof kMagic) != 0)
      throw InputError(file, 0, "shard magic \"GYRESHRD\"", printable(header, sizeof kMagic));
    const unsigned char* p = header + sizeof kMagic;
    header_.version = get<std::uint32_t>(p);
    header_.kind = get<std::uint32_t>(p);
    header_.count = get<std::uint64_t>(p);
    header_.space[0] = get<std::uint32_t>(p);
    header_.space[1] = get<std::uint32_t>(p);
    header_.checksum = get<std::uint32_t>(p);
    if (header_.version != kShardVersion)
      throw InputError(file, 0, "shard format version " + std::to_string(kShardVersion),
                       std::to_string(header_.version));
    if (header_.kind != kind)
      throw InputError(file, 0, "shard kind " + std::to_string(kind) + " (" + kind_name(kind) + ")",
                       std::to_string(header_.kind));
  }

  const Header& header() const { return header_; }
  std::uintmax_t records_bytes() const { return size_ - kHeaderSize; }
  std::uintmax_t file_size() const { return size_; }

  // Reads the next n bytes of records and folds them into the running checksum.
  void read(void* into, std::size_t n) {
    if (n > 0 && std::fread(into, 1, n, in_.get()) != n) throw InputError(file_, 0, "a readable shard file", "a short read");
    crc_ = crc32c(into, n, crc_);
  }

  void check_checksum() const {
    if (crc_ != header_.checksum) throw InputError(file_, 0, "records checksum " + hex(header_.checksum), hex(crc_));
  }

 private:
  const std::filesystem::path& file_;
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> in_;
  std::uintmax_t size_ = 0;
  Header header_;
  std::uint32_t crc_ = 0;
};

}  // namespace

std::uint32_t records_checksum(const RatingsSet& shard) {
  const auto bytes = bytes_of(shard.ratings);
  return crc32c(bytes.data(), bytes.size());
}

std::uint32_t records_checksum(const Corpus& shard) {
  const std::vector<unsigned char> table = doc_table(shard);
  const auto words = bytes_of(shard.words);
  return crc32c(words.data(), words.size(), crc32c(table.data(), table.size()));
}

std::uint32_t records_checksum(const RegressionSet& shard) {
  const std::vector<unsigned char> table = row_table(shard), pairs = pair_table(shard);
  return crc32c(pairs.data(), pairs.size(), crc32c(table.data(), table.size()));
}

void write_ratings_shard(const std::filesystem::path& file, const RatingsSet& shard) {
  Header h;
  h.kind = kKindRatings;
  h.count = shard.ratings.size();
  h.space[0] = shard.users;
  h.space[1] = shard.items;
  h.checksum = records_checksum(shard);
  write_shard(file, h, {bytes_of(shard.ratings)});
}

RatingsSet read_ratings_shard(const std::filesystem::path& file) {
  ShardReader in(file, kKindRatings);
  const Header& h = in.header();
  // The size check comes before any allocation, so a corrupt count cannot ask for terabytes.
  if (h.count > in.records_bytes() / sizeof(Rating) || in.records_bytes() != h.count * sizeof(Rating))
    throw InputError(file, 0,
                     std::to_string(kHeaderSize + h.count * sizeof(Rating)) + " bytes for " +
                         std::to_string(h.count) + " records",
                     std::to_string(in.file_size()) + " bytes");

  RatingsSet set;
  set.users = h.space[0];
  set.items = h.space[1];
  set.ratings.resize(h.count);
  in.read(set.ratings.data(), set.ratings.size() * sizeof(Rating));
  in.check_checksum();
  for (std::size_t i = 0; i < set.ratings.size(); ++i) {
    const Rating& r = set.ratings[i];
    if (r.user >= set.users || r.item >= set.items)
      throw InputError(file, 0,
                       "ids within the header's id space " + std::to_string(set.users) + "x" +
                           std::to_string(set.items),
                       "record " + std::to_string(i) + ": " + std::to_string(r.user) + " " + std::to_string(r.item));
    // A checksum proves the bytes are the writer's, not that the writer wrote numbers.
    if (!std::isfinite(r.value))
      throw InputError(file, 0, "finite ratings", "record " + std::to_string(i) + ": " + std::to_string(r.value));
  }
  return set;
}

void write_corpus_shard_file(const std::filesystem::path& file, const Corpus& shard) {
  const std::vector<unsigned char> table = doc_table(shard);
  Header h;
  h.kind = kKindCorpus;
  h.count = shard.docs();
  h.space[0] = shard.vocab_size();
  h.checksum = records_checksum(shard);
  write_shard(file, h, {std::span<const unsigned char>(table), bytes_of(shard.words)});
}

CorpusShardFile read_corpus_shard_file(const std::filesystem::path& file) {
  ShardReader in(file, kKindCorpus);
  const Header& h = in.header();
  const std::string docs = std::to_string(h.count) + " documents";
  if (h.count > in.records_bytes() / kDocEntrySize)
    throw InputError(file, 0, "at least " + std::to_string(kHeaderSize + h.count * kDocEntrySize) + " bytes for " + docs,
                     std::to_string(in.file_size()) + " bytes");
  std::vector<unsigned char> table(h.count * kDocEntrySize);
  in.read(table.data(), table.size());

  CorpusShardFile out;
  out.vocab_size = h.space[0];
  out.checksum = h.checksum;
  Corpus& c = out.corpus;
  c.doc_ids.reserve(h.count);
  c.doc_begin.reserve(h.count + 1);
  const unsigned char* p = table.data();
  for (std::uint64_t d = 0; d < h.count; ++d) {
    c.doc_ids.push_back(get<std::uint64_t>(p));
    c.doc_begin.push_back(c.doc_begin.back() + get<std::uint32_t>(p));
  }
  // Token counts are at most 2^32 each, so their sum cannot wrap for any count that fits the file.
  const std::uint64_t tokens = c.doc_begin.back();
  const std::uintmax_t words_bytes = in.records_bytes() - table.size();
  if (tokens > words_bytes / sizeof(std::uint32_t) || words_bytes != tokens * sizeof(std::uint32_t))
    throw InputError(file, 0,
                     std::to_string(kHeaderSize + table.size() + tokens * sizeof(std::uint32_t)) + " bytes for " +
                         docs + " and " + std::to_string(tokens) + " tokens",
                     std::to_string(in.file_size()) + " bytes");
  c.words.resize(tokens);
  in.read(c.words.data(), c.words.size() * sizeof(std::uint32_t));
  in.check_checksum();
  for (std::uint64_t i = 0; i < tokens; ++i)
    if (c.words[i] >= out.vocab_size)
      throw InputError(file, 0, "word ids below the header's vocabulary size " + std::to_string(out.vocab_size),
                       "token " + std::to_string(i) + ": " + std::to_string(c.words[i]));
  return out;
}

void write_row_shard_file(const std::filesystem::path& file, const RegressionSet& shard) {
  const std::vector<unsigned char> table = row_table(shard), pairs = pair_table(shard);
  Header h;
  h.kind = kKindRows;
  h.count = shard.samples();
  h.space[0] = shard.features;
  h.checksum = crc32c(pairs.data(), pairs.size(), crc32c(table.data(), table.size()));
  write_shard(file, h, {std::span<const unsigned char>(table), std::span<const unsigned char>(pairs)});
}

RowShardFile read_row_shard_file(const std::filesystem::path& file) {
  ShardReader in(file, kKindRows);
  const Header& h = in.header();
  const std::string samples = std::to_string(h.count) + " samples";
  if (h.count > in.records_bytes() / kRowEntrySize)
    throw InputError(file, 0, "at least " + std::to_string(kHeaderSize + h.count * kRowEntrySize) + " bytes for " + samples,
                     std::to_string(in.file_size()) + " bytes");
  std::vector<unsigned char> table(h.count * kRowEntrySize);
  in.read(table.data(), table.size());

  RowShardFile out;
  out.checksum = h.checksum;
  RegressionSet& s = out.set;
  s.features = h.space[0];
  s.sample_ids.reserve(h.count);
  s.y.reserve(h.count);
  s.row_begin.reserve(h.count + 1);
  const unsigned char* p = table.data();
  for (std::uint64_t i = 0; i < h.count; ++i) {
    s.sample_ids.push_back(get<std::uint64_t>(p));
    s.row_begin.push_back(s.row_begin.back() + get<std::uint32_t>(p));
    s.y.push_back(get<double>(p));
  }
  // Non-zero counts are below 2^32 each, so their sum cannot wrap for any count that fits the file.
  const std::uint64_t nnz = s.row_begin.back();
  const std::uintmax_t pairs_bytes = in.records_bytes() - table.size();
  if (nnz > pairs_bytes / kPairSize || pairs_bytes != nnz * kPairSize)
    throw InputError(file, 0,
                     std::to_string(kHeaderSize + table.size() + nnz * kPairSize) + " bytes for " + samples +
                         " and " + std::to_string(nnz) + " non-zeros",
                     std::to_string(in.file_size()) + " bytes");
  std::vector<unsigned char> pairs(nnz * kPairSize);
  in.read(pairs.data(), pairs.size());
  in.check_checksum();
  s.cols.resize(nnz);
  s.values.resize(nnz);
  p = pairs.data();
  for (std::uint64_t k = 0; k < nnz; ++k) {
    s.cols[k] = get<std::uint32_t>(p);
    s.values[k] = get<double>(p);
  }
  for (std::uint64_t i = 0; i < h.count; ++i) {
    if (!std::isfinite(s.y[i]))
      throw InputError(file, 0, "finite responses", "sample " + std::to_string(s.sample_ids[i]) + ": " + std::to_string(s.y[i]));
    for (std::uint64_t k = s.row_begin[i]; k < s.row_begin[i + 1]; ++k) {
      if (s.cols[k] >= s.features || (k > s.row_begin[i] && s.cols[k] <= s.cols[k - 1]))
        throw InputError(file, 0,
                         "increasing columns below the header's feature count " + std::to_string(s.features),
                         "sample " + std::to_string(s.sample_ids[i]) + ": column " + std::to_string(s.cols[k]));
      if (!std::isfinite(s.values[k]))
        throw InputError(file, 0, "finite values", "sample " + std::to_string(s.sample_ids[i]) + ": " +
                                                        std::to_string(s.values[k]));
    }
  }
  return out;
}

}  // namespace gyre::data
