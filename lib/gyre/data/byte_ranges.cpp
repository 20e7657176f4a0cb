// gyre/data/byte_ranges.cpp — listing an input's files and reading the lines that start in a byte range.
#include "gyre/data/byte_ranges.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <limits>
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

// Line readers take whole lines a MiB at a time, cut into lines as every reader cuts them.
constexpr std::uint64_t kLineBlockBytes = std::uint64_t{1} << 20;

BlockSink cut_into_lines(const LineSink& on_line) {
  return [&on_line](std::string_view block) {
    LineCursor lines(block);
    std::string_view line;
    while (lines.next(line)) on_line(line);
  };
}

}  // namespace

SplitStats read_split_blocks(const fs::path& file, ByteRange range, std::uint64_t block_bytes, const BlockSink& on_block) {
  SplitStats stats;
  std::ifstream in = open_input(file);
  const auto first = seek_first_line(in, range);
  if (!first) return stats;
  block_bytes = std::max<std::uint64_t>(block_bytes, 1);
  std::uint64_t at = *first;  // the next byte to read
  std::string block, carry;   // carry: the start of a line the last block cut off
  bool file_start = at == 0;  // the next block starts the file
  const auto deliver = [&] {
    stats.bytes += block.size();
    stats.lines += static_cast<std::uint64_t>(std::count(block.begin(), block.end(), '\n')) +
                   (!block.empty() && block.back() != '\n' ? 1 : 0);
    std::string_view text = block;
    // As slurp: a byte-order mark is not data (its bytes are still the range's).
    if (file_start && text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);
    file_start = false;
    if (!text.empty()) on_block(text);
  };
  while (at < range.end) {
    const std::uint64_t want = std::min(block_bytes, range.end - at);
    block = std::move(carry);
    carry.clear();
    const std::size_t kept = block.size();
    block.resize(kept + want);
    in.read(block.data() + kept, static_cast<std::streamsize>(want));
    const auto got = static_cast<std::uint64_t>(in.gcount());
    block.resize(kept + got);
    at += got;
    if (got < want) {  // the file ended (or shrank) inside the range: what was read is the last block
      at = range.end;
      in.clear(std::ios::eofbit);
    }
    if (at >= range.end) {
      // The last line runs on past the range's end to its '\n' (or the end of the file).
      if (!block.empty() && block.back() != '\n' && in) {
        std::string rest;
        std::getline(in, rest);
        block += rest;
        if (!in.eof()) block.push_back('\n');
      }
      deliver();
      break;
    }
    const std::size_t cut = block.rfind('\n');
    if (cut == std::string::npos) {  // one line longer than a block: read on
      carry = std::move(block);
      continue;
    }
    carry.assign(block, cut + 1);
    block.resize(cut + 1);
    deliver();
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
  return read_split_blocks(file, range, kLineBlockBytes, cut_into_lines(on_line));
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
  return read_split_blocks(files, part, parts, kLineBlockBytes, cut_into_lines(on_line));
}

}  // namespace gyre::data
