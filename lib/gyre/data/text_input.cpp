// gyre/data/text_input.cpp — reading a whole input file with errors that name it.
#include "gyre/data/text_input.hpp"

#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <system_error>

#include "gyre/base/input_error.hpp"

namespace gyre::data {

namespace {

// The rest of an open file; `size` (0: unknown) sizes the first read. Drops a leading byte-order mark.
std::string read_all(const std::filesystem::path& file, std::FILE* in, std::uintmax_t size) {
  std::string text;
  // One read of the whole size when the file has one: growing the text chunk by chunk copies it
  // again at every doubling, which costs a 20M-line file a third of its load time. A file without
  // a size (a pipe) or one that grows meanwhile is read on in chunks.
  constexpr std::size_t kChunk = std::size_t{1} << 20;
  std::size_t want = size == 0 ? kChunk : static_cast<std::size_t>(size) + 1;  // + 1 sees the end at once
  for (;;) {
    const std::size_t old = text.size();
    text.resize(old + want);
    const std::size_t got = std::fread(text.data() + old, 1, want, in);
    text.resize(old + got);
    if (got < want) break;
    want = kChunk;
  }
  if (std::ferror(in)) throw InputError(file, 0, "a readable file", std::strerror(errno));
  // Editors on some systems start UTF-8 files with a byte-order mark; it is not data, and left
  // in place it would glue itself invisibly to the first field.
  if (text.starts_with("\xEF\xBB\xBF")) text.erase(0, 3);
  return text;
}

}  // namespace

std::string slurp(const std::filesystem::path& file) {
  std::error_code ec;
  if (std::filesystem::is_directory(file, ec)) throw InputError(file, 0, "a readable file", "a directory");
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> in(std::fopen(file.c_str(), "rb"), &std::fclose);
  if (!in) throw InputError(file, 0, "a readable file", std::strerror(errno));
  const std::uintmax_t size = std::filesystem::file_size(file, ec);
  return read_all(file, in.get(), ec ? 0 : size);
}

FileStart read_file_start(const std::filesystem::path& file, std::size_t bytes) {
  std::error_code ec;
  if (std::filesystem::is_directory(file, ec)) throw InputError(file, 0, "a readable file", "a directory");
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> in(std::fopen(file.c_str(), "rb"), &std::fclose);
  if (!in) throw InputError(file, 0, "a readable file", std::strerror(errno));
  FileStart start;
  start.text.resize(bytes);
  start.text.resize(std::fread(start.text.data(), 1, bytes, in.get()));
  if (std::ferror(in.get())) throw InputError(file, 0, "a readable file", std::strerror(errno));
  start.whole = start.text.size() < bytes;
  // Only whole lines: a cut start is taken up to its last '\n'.
  if (!start.whole) start.text.resize(start.text.rfind('\n') == std::string::npos ? 0 : start.text.rfind('\n') + 1);
  if (start.text.starts_with("\xEF\xBB\xBF")) {
    start.text.erase(0, 3);
    start.skipped = 3;
  }
  return start;
}

bool is_stream(const std::filesystem::path& file) {
  std::error_code ec;
  const auto type = std::filesystem::status(file, ec).type();
  return type == std::filesystem::file_type::fifo || type == std::filesystem::file_type::character ||
         type == std::filesystem::file_type::socket;
}

std::optional<std::string> read_if_stream(const std::filesystem::path& file) {
  if (!is_stream(file)) return std::nullopt;
  return slurp(file);
}

LineReader::LineReader(const std::filesystem::path& file) : file_(file), in_(nullptr, &std::fclose) {
  std::error_code ec;
  if (std::filesystem::is_directory(file, ec)) throw InputError(file, 0, "a readable file", "a directory");
  in_.reset(std::fopen(file.c_str(), "rb"));
  if (!in_) throw InputError(file, 0, "a readable file", std::strerror(errno));
  size_ = std::filesystem::file_size(file, ec);
  if (ec) size_ = 0;
  buffer_.resize(std::size_t{1} << 20);
}

bool LineReader::fill() {
  if (begin_ > 0) {  // the unread tail to the front
    std::memmove(buffer_.data(), buffer_.data() + begin_, end_ - begin_);
    end_ -= begin_;
    begin_ = 0;
  }
  if (end_ == buffer_.size()) buffer_.resize(2 * buffer_.size());  // a line longer than the buffer
  const std::size_t got = std::fread(buffer_.data() + end_, 1, buffer_.size() - end_, in_.get());
  if (got == 0 && std::ferror(in_.get())) throw InputError(file_, number_ + 1, "a readable file", std::strerror(errno));
  end_ += got;
  if (at_start_ && end_ >= 3) {  // as slurp: a byte-order mark is not data
    if (std::string_view(buffer_.data(), 3) == "\xEF\xBB\xBF") begin_ = 3;
    at_start_ = false;
  }
  return got > 0;
}

bool LineReader::next(std::string_view& line) {
  for (;;) {
    const std::string_view unread(buffer_.data() + begin_, end_ - begin_);
    const std::size_t newline = unread.find('\n');
    if (newline != std::string_view::npos) {
      line = unread.substr(0, newline);
      begin_ += newline + 1;
      break;
    }
    if (!fill()) {
      if (begin_ == end_) return false;
      line = std::string_view(buffer_.data() + begin_, end_ - begin_);  // the last line, without '\n'
      begin_ = end_;
      break;
    }
  }
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  ++number_;
  return true;
}

bool parse_decimal(std::string_view token, std::uint64_t& value, std::uint64_t max) {
  // from_chars would accept neither '+' nor '-', but checking the first byte keeps "-0" out too.
  if (token.empty() || token.front() < '0' || token.front() > '9') return false;
  const auto [end, ec] = std::from_chars(token.data(), token.data() + token.size(), value);
  return ec == std::errc() && end == token.data() + token.size() && value <= max;
}

bool parse_finite(std::string_view token, double& value) {
  const auto [end, ec] = std::from_chars(token.data(), token.data() + token.size(), value);
  return ec == std::errc() && end == token.data() + token.size() && std::isfinite(value);
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::size_t split_blanks(std::string_view line, std::string_view* fields, std::size_t max) {
  std::size_t n = 0, i = 0;
  for (;;) {
    while (i < line.size() && is_blank(line[i])) ++i;
    if (i == line.size()) return n;
    if (n == max) return max + 1;
    const std::size_t start = i;
    while (i < line.size() && !is_blank(line[i])) ++i;
    fields[n++] = line.substr(start, i - start);
  }
}

std::size_t split_fields(std::string_view line, std::string_view* fields, std::size_t max) {
  std::size_t n = 0, i = 0;
  while (i < line.size() && is_blank(line[i])) ++i;
  while (i < line.size()) {
    const std::size_t start = i;
    while (i < line.size() && !is_blank(line[i]) && line[i] != ',') ++i;
    if (i == start || n == max) return max + 1;
    fields[n++] = line.substr(start, i - start);
    while (i < line.size() && is_blank(line[i])) ++i;
    if (i < line.size() && line[i] == ',') {
      ++i;
      while (i < line.size() && is_blank(line[i])) ++i;
      if (i == line.size()) return max + 1;  // trailing comma: an empty last field
    }
  }
  return n;
}

std::uint64_t parse_bounded(const std::filesystem::path& file, std::size_t line, std::string_view token,
                            const std::string& what, std::uint64_t lowest, std::uint64_t highest) {
  if (!token.empty() && token.front() == '-') throw InputError(file, line, "a non-negative " + what, std::string(token));
  std::uint64_t value = 0;
  const auto [end, ec] = std::from_chars(token.data(), token.data() + token.size(), value);
  if (ec == std::errc::invalid_argument || end != token.data() + token.size())
    throw InputError(file, line, "an integer " + what, std::string(token));
  if (ec == std::errc::result_out_of_range || value < lowest || value > highest)
    throw InputError(file, line, what + " in [" + std::to_string(lowest) + ", " + std::to_string(highest) + "]",
                     std::string(token));
  return value;
}

bool is_matrix_market_banner(std::string_view first_line) {
  return first_line.starts_with("%%MatrixMarket") || first_line.starts_with("%%matrixmarket");
}

std::optional<MatrixMarketSize> read_matrix_market_size(const std::filesystem::path& file, std::string_view banner,
                                                         LineCursor& lines, std::uint64_t max_dim) {
  std::string_view f[6];
  const std::size_t n = split_fields(banner, f, 5);
  if (n != 5 || lower(f[1]) != "matrix" || lower(f[2]) != "coordinate" ||
      (lower(f[3]) != "real" && lower(f[3]) != "integer") || lower(f[4]) != "general")
    throw InputError(file, 1, "\"%%MatrixMarket matrix coordinate real|integer general\"", std::string(banner));
  std::string_view line;
  while (lines.next(line)) {
    if (!line.empty() && line.front() == '%') continue;
    const std::size_t count = split_fields(line, f, 3);
    if (count == 0) continue;
    const std::size_t at = lines.number();
    if (count != 3) throw InputError(file, at, "a size line \"rows columns entries\"", std::string(line));
    MatrixMarketSize size;
    size.rows = parse_bounded(file, at, f[0], "row count", 0, max_dim);
    size.cols = parse_bounded(file, at, f[1], "column count", 0, max_dim);
    size.entries = parse_bounded(file, at, f[2], "entry count", 0, size.rows * size.cols);
    size.line = at;
    return size;
  }
  return std::nullopt;
}

}  // namespace gyre::data
