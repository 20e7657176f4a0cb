// gyre/data/text_input.hpp — whole-file reading and line walking shared by the text readers (internal to lib/, not installed).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

namespace gyre::data {

// Files reach 20M lines, so the whole file is read at once and parsed in place; per-token
// iostream extraction would dominate the load time. Throws gyre::InputError for a missing,
// unreadable file or a directory.
std::string slurp(const std::filesystem::path& file);

// Walks the text line by line, tracking the 1-based line number for error messages.
class LineCursor {
 public:
  explicit LineCursor(std::string_view text) : text_(text) {}

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

 private:
  std::string_view text_;
  std::size_t pos_ = 0;
  std::size_t number_ = 0;
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

}  // namespace gyre::data
