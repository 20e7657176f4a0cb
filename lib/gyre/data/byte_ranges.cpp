// gyre/data/byte_ranges.cpp — listing an input's files and reading the lines that start in a byte range.
#include "gyre/data/byte_ranges.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <limits>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <system_error>

#include "gyre/base/input_error.hpp"
#include "gyre/data/text_input.hpp"

namespace gyre::data {
namespace fs = std::filesystem;

namespace {

std::uint64_t size_of(const fs::path& file) {
  std::error_code ec;
  const auto size = fs::file_size(file, ec);
  if (ec) throw InputError(file, 0, "a readable file", ec.message());
  return size;
}

bool hidden(const fs::path& p) { return p.filename().string().starts_with("."); }

}  // namespace

std::vector<InputFile> list_input_files(const fs::path& input) {
  std::error_code ec;
  const auto status = fs::status(input, ec);
  if (ec || !fs::exists(status))
    throw InputError(input, 0, "an existing file or directory", ec ? ec.message() : "no such file or directory");
  if (fs::is_regular_file(status)) return {InputFile{input, size_of(input)}};
  if (!fs::is_directory(status)) throw InputError(input, 0, "a regular file or a directory");
  std::vector<InputFile> files;
  fs::directory_iterator it(input, ec);
  if (ec) throw InputError(input, 0, "a readable directory", ec.message());
  for (; it != fs::directory_iterator(); it.increment(ec)) {
    if (ec) throw InputError(input, 0, "a readable directory", ec.message());
    const fs::path p = it->path();
    if (hidden(p) || !fs::is_regular_file(p, ec)) continue;  // a broken link or a subdirectory
    files.push_back({p, size_of(p)});
  }
  if (ec) throw InputError(input, 0, "a readable directory", ec.message());
  std::sort(files.begin(), files.end(), [](const InputFile& a, const InputFile& b) { return a.path < b.path; });
  return files;
}

std::vector<InputFile> nonempty_input_files(const fs::path& input, const std::string& what) {
  std::vector<InputFile> files = list_input_files(input);
  if (files.empty()) throw InputError(input, 0, what, "a directory without any");
  return files;
}

ByteRange split_range(std::uint64_t total, int part, int parts) {
  if (parts < 1 || part < 0 || part >= parts)
    throw std::invalid_argument("split_range: part " + std::to_string(part) + " of " + std::to_string(parts));
  const auto P = static_cast<std::uint64_t>(parts);
  const std::uint64_t q = total / P, rem = total % P;  // rem·part < P², so nothing overflows
  auto at = [&](std::uint64_t r) { return q * r + rem * r / P; };
  return {at(static_cast<std::uint64_t>(part)), at(static_cast<std::uint64_t>(part) + 1)};
}

namespace {

// Positions `in` at the first line that starts in `range` (at `begin` if a line starts there, else
// after the next '\n') and returns its offset, or nullopt when no line starts there.
std::optional<std::uint64_t> seek_first_line(std::ifstream& in, ByteRange range) {
  if (range.begin >= range.end) return std::nullopt;
  if (range.begin == 0) return 0;
  in.seekg(static_cast<std::streamoff>(range.begin - 1));
  const int before = in.get();
  if (before == std::char_traits<char>::eof()) return std::nullopt;  // the file shrank: nothing here
  if (before == '\n') return range.begin;
  in.ignore(std::numeric_limits<std::streamsize>::max(), '\n');
  if (in.eof()) return std::nullopt;  // the line that holds `begin` is the file's last
  const auto at = static_cast<std::uint64_t>(in.tellg());
  if (at >= range.end) return std::nullopt;
  return at;
}

std::ifstream open_input(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw InputError(file, 0, "a readable file", std::strerror(errno));
  return in;
}

}  // namespace

namespace {

// Line readers take whole lines a block at a time, cut into lines as every reader cuts them.
BlockSink cut_into_lines(const LineSink& on_line) {
  return [&on_line](std::string_view block) {
    LineCursor lines(block);
    std::string_view line;
    while (lines.next(line)) on_line(line);
  };
}

// The bytes of the blocks, allocated once for a range and grown only for a line longer than a
// block: a block a fresh allocation costs a page fault per 4 KiB and a zeroing of the whole
// block, which on a 64 MiB block took more time than the parse.
class BlockBuffer {
 public:
  char* data() { return bytes_.get(); }
  // Room for `size` bytes, the first `keep` kept.
  void reserve(std::size_t size, std::size_t keep) {
    if (size <= capacity_) return;
    const std::size_t grown = std::max(size, capacity_ + capacity_ / 2);
    auto bigger = std::make_unique_for_overwrite<char[]>(grown);
    if (keep > 0) std::memcpy(bigger.get(), bytes_.get(), keep);
    bytes_ = std::move(bigger);
    capacity_ = grown;
  }

 private:
  std::unique_ptr<char[]> bytes_;
  std::size_t capacity_ = 0;
};

}  // namespace

SplitStats read_split_blocks(const fs::path& file, ByteRange range, std::uint64_t block_bytes, const BlockSink& on_block) {
  SplitStats stats;
  std::ifstream in = open_input(file);
  const auto first = seek_first_line(in, range);
  if (!first) return stats;
  block_bytes = std::max<std::uint64_t>(block_bytes, 1);
  std::uint64_t at = *first;  // the next byte to read
  BlockBuffer buffer;
  std::size_t kept = 0;       // the start of a line the last block cut off, at the buffer's front
  bool file_start = at == 0;  // the next block starts the file
  const auto deliver = [&](std::size_t size) {
    std::string_view text(buffer.data(), size);
    stats.bytes += size;
    stats.lines += static_cast<std::uint64_t>(std::count(text.begin(), text.end(), '\n')) +
                   (!text.empty() && text.back() != '\n' ? 1 : 0);
    // As slurp: a byte-order mark is not data (its bytes are still the range's).
    if (file_start && text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);
    file_start = false;
    if (!text.empty()) on_block(text);
  };
  while (at < range.end) {
    const auto want = static_cast<std::size_t>(std::min(block_bytes, range.end - at));
    buffer.reserve(kept + want, kept);
    in.read(buffer.data() + kept, static_cast<std::streamsize>(want));
    const auto got = static_cast<std::size_t>(in.gcount());
    std::size_t size = kept + got;
    at += got;
    if (got < want) {  // the file ended (or shrank) inside the range: what was read is the last block
      at = range.end;
      in.clear(std::ios::eofbit);
    }
    if (at >= range.end) {
      // The last line runs on past the range's end to its '\n' (or the end of the file).
      if (size > 0 && buffer.data()[size - 1] != '\n' && in) {
        std::string rest;
        std::getline(in, rest);
        const bool ended = !in.eof();
        buffer.reserve(size + rest.size() + 1, size);
        std::memcpy(buffer.data() + size, rest.data(), rest.size());
        size += rest.size();
        if (ended) buffer.data()[size++] = '\n';
      }
      deliver(size);
      break;
    }
    const void* cut = memrchr(buffer.data(), '\n', size);
    if (cut == nullptr) {  // one line longer than a block: read on
      kept = size;
      continue;
    }
    const auto whole = static_cast<std::size_t>(static_cast<const char*>(cut) - buffer.data()) + 1;
    deliver(whole);
    kept = size - whole;
    std::memmove(buffer.data(), buffer.data() + whole, kept);
  }
  if (in.bad()) throw InputError(file, 0, "a readable file", std::strerror(errno));
  return stats;
}

std::string read_split_text(const fs::path& file, ByteRange range, SplitStats& stats) {
  std::string text;
  stats = read_split_blocks(file, range, range.end - std::min(range.begin, range.end),
                            [&](std::string_view block) { text += block; });
  return text;
}

SplitStats read_split_lines(const fs::path& file, ByteRange range, const LineSink& on_line) {
  return read_split_blocks(file, range, kRangeBlockBytes, cut_into_lines(on_line));
}

std::uint64_t total_size(std::span<const InputFile> files) {
  std::uint64_t total = 0;
  for (const InputFile& f : files) total += f.size;
  return total;
}

std::vector<ByteRange> file_pieces(std::span<const InputFile> files, ByteRange range) {
  std::vector<ByteRange> pieces(files.size());
  std::uint64_t offset = 0;  // of the file within the files laid end to end
  for (std::size_t f = 0; f < files.size(); offset += files[f].size, ++f) {
    const std::uint64_t begin = std::max(range.begin, offset), end = std::min(range.end, offset + files[f].size);
    if (begin < end) pieces[f] = {begin - offset, end - offset};
  }
  return pieces;
}

SplitStats read_split_blocks(std::span<const InputFile> files, int part, int parts, std::uint64_t block_bytes,
                             const BlockSink& on_block) {
  const std::vector<ByteRange> pieces = file_pieces(files, split_range(total_size(files), part, parts));
  SplitStats stats;
  for (std::size_t f = 0; f < files.size(); ++f)
    if (pieces[f].begin < pieces[f].end) stats += read_split_blocks(files[f].path, pieces[f], block_bytes, on_block);
  return stats;
}

SplitStats read_split(std::span<const InputFile> files, int part, int parts, const LineSink& on_line) {
  return read_split_blocks(files, part, parts, kRangeBlockBytes, cut_into_lines(on_line));
}

}  // namespace gyre::data
