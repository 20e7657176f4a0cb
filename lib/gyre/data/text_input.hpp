// gyre/data/text_input.hpp — whole-file reading and line walking shared by the text readers (internal to lib/, not installed).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace gyre::data {

// Files reach 20M lines, so the whole file is read at once and parsed in place; per-token
// iostream extraction would dominate the load time. A UTF-8 byte-order mark at the start is
// dropped. Throws gyre::InputError for a missing, unreadable file or a directory.
std::string slurp(const std::filesystem::path& file);

// The whole text of an input that can be read only once (a pipe, as `<(zcat f.gz)` gives, a
// character device or a socket), as slurp reads it; nothing for anything else, which the readers
// stream in blocks (and which then raise their own error for a missing file or a directory). A
// stream is read whole because its first lines, once read for a header, cannot be read again.
std::optional<std::string> read_if_stream(const std::filesystem::path& file);
// Whether `file` is such an input: a FIFO, a character device or a socket.
bool is_stream(const std::filesystem::path& file);

// The first `bytes` of a file cut to whole lines (the whole file when it is shorter: `whole`),
// without a leading byte-order mark (`skipped`: its bytes, for offsets into the file).
struct FileStart {
  std::string text;
  bool whole = false;
  std::size_t skipped = 0;
};
FileStart read_file_start(const std::filesystem::path& file, std::size_t bytes);

// A header parsed from the start of a file: parse(text, whole) sees the first 64 KiB in whole
// lines, then twice as much, until it returns a value (the whole file: it must return or throw).
// Returns that value and the byte-order mark's bytes skipped before the text it saw.
template <class Parse>
auto parse_file_start(const std::filesystem::path& file, Parse&& parse) {
  for (std::size_t want = std::size_t{1} << 16;; want *= 2) {
    const FileStart start = read_file_start(file, want);
    if (auto value = parse(std::string_view(start.text), start.whole)) return std::pair(std::move(*value), start.skipped);
  }
}

// Streams a file line by line through one buffer (1 MiB, grown only for a longer line), for
// inputs too large to hold whole next to what is parsed from them. The same lines, numbers
// and byte-order-mark rule as LineCursor over slurp(); a line's view lasts until the next call.
class LineReader {
 public:
  // Throws gyre::InputError for a missing, unreadable file or a directory, as slurp does.
  explicit LineReader(const std::filesystem::path& file);
  bool next(std::string_view& line);
  std::size_t number() const { return number_; }
  std::uint64_t file_size() const { return size_; }

 private:
  bool fill();  // keeps the unread bytes, reads more after them; false once nothing is left

  std::filesystem::path file_;
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> in_;
  std::uint64_t size_ = 0;
  std::string buffer_;
  std::size_t begin_ = 0;  // unread bytes are buffer_[begin_, end_)
  std::size_t end_ = 0;
  bool at_start_ = true;
  std::size_t number_ = 0;
};

// Walks the text line by line, tracking the 1-based line number for error messages. A cursor
// over a piece of a file starts counting after `lines_before`, the lines that precede the piece.
class LineCursor {
 public:
  explicit LineCursor(std::string_view text, std::size_t lines_before = 0) : text_(text), number_(lines_before) {}

  bool next(std::string_view& line) {
    if (pos_ >= text_.size()) return false;
    const std::size_t end = std::min(text_.find('\n', pos_), text_.size());
    line = text_.substr(pos_, end - pos_);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    pos_ = end + 1;
    ++number_;
    return true;
  }
  std::size_t number() const { return number_; }
  // The lines not read yet.
  std::string_view rest() const { return text_.substr(std::min(pos_, text_.size())); }

 private:
  std::string_view text_;
  std::size_t pos_ = 0;
  std::size_t number_;
};

inline bool is_blank(char c) { return c == ' ' || c == '\t'; }

inline std::string_view trim_blanks(std::string_view s) {
  while (!s.empty() && is_blank(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_blank(s.back())) s.remove_suffix(1);
  return s;
}

// The whole token as a decimal number without sign; false for anything else, including
// values above `max`.
bool parse_decimal(std::string_view token, std::uint64_t& value, std::uint64_t max = UINT64_MAX);

// The whole token as a finite double (from_chars syntax: no leading '+'); false otherwise.
bool parse_finite(std::string_view token, double& value);

// ASCII lowercase copy, for case-insensitive keywords (MatrixMarket banners).
std::string lower(std::string_view s);

// Splits on runs of blanks; returns the field count, or max + 1 when there are more fields.
std::size_t split_blanks(std::string_view line, std::string_view* fields, std::size_t max);

// Splits a line into at most `max` fields on runs of blanks or on one comma with optional blanks
// around it. Returns the field count, or max + 1 when there are more fields or an empty one
// (",,"), so that every malformed shape reports as "wrong number of fields".
std::size_t split_fields(std::string_view line, std::string_view* fields, std::size_t max);

// Parses a non-negative integer and checks it against [lowest, highest]; `what` names the field
// ("user id", "row count") in the InputError thrown at file:line otherwise, which tells a
// negative, a non-integer and an out-of-range value apart.
std::uint64_t parse_bounded(const std::filesystem::path& file, std::size_t line, std::string_view token,
                            const std::string& what, std::uint64_t lowest, std::uint64_t highest);

// The size line of a MatrixMarket coordinate file and where it was.
struct MatrixMarketSize {
  std::uint64_t rows = 0, cols = 0, entries = 0;
  std::size_t line = 0;
};

bool is_matrix_market_banner(std::string_view first_line);

// Checks the banner (line 1: "%%MatrixMarket matrix coordinate real|integer general") and reads
// on to the size line "rows columns entries", skipping '%' comments and blank lines; rows and
// columns are at most max_dim. The readers of ratings and of regression data share it, so both
// accept exactly the same headers. Returns nothing if the file ends before a size line.
std::optional<MatrixMarketSize> read_matrix_market_size(const std::filesystem::path& file, std::string_view banner,
                                                         LineCursor& lines, std::uint64_t max_dim);

}  // namespace gyre::data
