// gyre/base/input_error.cpp — formats "FILE:LINE: expected X, found 'Y'".
#include "gyre/base/input_error.hpp"

#include <cstdint>
#include <cstdio>
#include <string_view>

namespace gyre {
namespace {

// What was found is shown as text a terminal displays faithfully: control bytes, bytes that are
// not UTF-8 (a binary file) and invisible characters (a byte-order mark, zero-width spaces) are
// written as escapes, so the message neither garbles the terminal nor hides the culprit.
std::string visible(std::string_view s) {
  std::string out;
  char escape[16];
  for (std::size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c < 0x7f) {
      out.push_back(static_cast<char>(c));
      ++i;
      continue;
    }
    // The length of a well-formed UTF-8 sequence starting here, or 0.
    std::size_t n = c >= 0xC2 && c <= 0xDF ? 2 : c >= 0xE0 && c <= 0xEF ? 3 : c >= 0xF0 && c <= 0xF4 ? 4 : 0;
    for (std::size_t k = 1; k < n; ++k)
      if (i + k >= s.size() || (static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) n = 0;
    if (n == 0) {
      std::snprintf(escape, sizeof escape, "\\x%02X", c);
      out += escape;
      ++i;
      continue;
    }
    std::uint32_t code = c & (0xFF >> (n + 1));
    for (std::size_t k = 1; k < n; ++k) code = (code << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3F);
    const bool invisible = code == 0xFEFF || (code >= 0x200B && code <= 0x200F) || code == 0x2028 ||
                           code == 0x2029 || code == 0x00A0 || code == 0x00AD || (code >= 0x80 && code < 0xA0);
    if (invisible) {
      std::snprintf(escape, sizeof escape, "\\u%04X", static_cast<unsigned>(code));
      out += escape;
    } else {
      out.append(s.substr(i, n));
    }
    i += n;
  }
  return out;
}

std::string format(const std::filesystem::path& file, std::size_t line, const std::string& expected,
                   const std::string& found) {
  // append() rather than operator+ chains: GCC 12 at -O3 warns (-Wrestrict) on the latter.
  std::string msg = visible(file.string());  // a name may hold a newline or bytes that are not UTF-8
  if (line > 0) msg.append(":").append(std::to_string(line));
  msg.append(": expected ").append(expected);
  if (!found.empty()) {
    // Long garbage lines would drown the message; the start is enough to find it.
    constexpr std::size_t kMaxShown = 60;
    msg.append(", found '").append(visible(std::string_view(found).substr(0, kMaxShown))).append(found.size() > kMaxShown ? "...'" : "'");
  }
  return msg;
}

}  // namespace

InputError::InputError(std::filesystem::path file, std::size_t line, const std::string& expected,
                       const std::string& found)
    : std::runtime_error(format(file, line, expected, found)), file_(std::move(file)), line_(line) {}

}  // namespace gyre
