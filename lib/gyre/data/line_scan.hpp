// gyre/data/line_scan.hpp — the usual shapes of numeric fields scanned in one pass, with the general parser's results; anything else is left to it (internal to lib/, not installed).
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace gyre::data {

// Splitting a line into fields and handing each to std::from_chars cost about 70 ns a ratings
// line, most of a file's load time. These scanners take the common shapes in one pass and return
// false for anything else (a sign, an exponent, too many digits, a bad field), so that the
// general parser decides, errors and all; where they return true, the value is the one
// from_chars gives.

// The decimal digits at p appended to `v` (unchecked: a caller refuses more than fit); p moves
// past them. Returns how many there were.
inline std::size_t take_digits(const char*& p, const char* end, std::uint64_t& v) {
  const char* const start = p;
  while (p < end && static_cast<unsigned char>(*p - '0') < 10) v = v * 10 + static_cast<std::uint64_t>(*p++ - '0');
  return static_cast<std::size_t>(p - start);
}

// At p: 1 to 18 decimal digits (no sign); p moves past them.
inline bool scan_digits(const char*& p, const char* end, std::uint64_t& value) {
  value = 0;
  const std::size_t n = take_digits(p, end, value);
  return n > 0 && n <= 18;
}

// At p: a run of blanks, or (with `comma`) one comma.
inline bool scan_separator(const char*& p, const char* end, bool comma) {
  if (comma && p < end && *p == ',') return ++p, true;
  const char* const start = p;
  while (p < end && (*p == ' ' || *p == '\t')) ++p;
  return p > start;
}

// At p: an optional '-', digits and optionally '.' and digits, 15 digits at most in all, no
// exponent; p moves past it. Its digits as one integer m (below 2^53) and 10^k (k after the
// point) are both doubles held exactly, so m / 10^k rounded once is the decimal correctly rounded
// (Clinger's fast path), as from_chars rounds it.
inline bool scan_double(const char*& p, const char* end, double& value) {
  const bool negative = p < end && *p == '-';
  if (negative) ++p;
  std::uint64_t m = 0;
  const std::size_t whole = take_digits(p, end, m);
  if (whole == 0 || whole > 15) return false;
  std::size_t k = 0;
  if (p < end && *p == '.') {
    k = take_digits(++p, end, m);
    if (k == 0 || whole + k > 15) return false;
  }
  static constexpr double kPowersOf10[] = {1e0, 1e1, 1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                           1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15};
  const double d = static_cast<double>(m) / kPowersOf10[k];
  value = negative ? -d : d;
  return true;
}

// The same to a float. Rounding the double d to float gives the decimal correctly rounded to a
// float unless d is exactly halfway between two floats: every such midpoint is a double, and
// rounding to double never crosses one, so otherwise d lies on the decimal's side of it.
// Midpoints, and values outside the normal floats, are left to from_chars.
inline bool scan_float(const char*& p, const char* end, float& value) {
  double d = 0;
  if (!scan_double(p, end, d)) return false;
  // A float keeps 23 of a double's 52 fraction bits: d is a midpoint when the 29 dropped are 100…0.
  constexpr std::uint64_t kDropped = (std::uint64_t{1} << 29) - 1, kHalf = std::uint64_t{1} << 28;
  if ((std::bit_cast<std::uint64_t>(d) & kDropped) == kHalf) return false;
  const double magnitude = d < 0 ? -d : d;
  if (magnitude != 0 && (magnitude < 0x1p-126 || magnitude > 0x1.fffffep127)) return false;
  value = static_cast<float>(d);
  return true;
}

struct TripleFields {
  std::uint64_t first = 0;
  std::uint64_t second = 0;
  float value = 0;
};

// A whole ratings line "A B V": two integers and a value (scan_float), separated by one comma or
// a run of blanks, nothing before or after.
inline bool parse_triple_line(std::string_view line, TripleFields& out) {
  const char* p = line.data();
  const char* const end = p + line.size();
  return scan_digits(p, end, out.first) && scan_separator(p, end, true) && scan_digits(p, end, out.second) &&
         scan_separator(p, end, true) && scan_float(p, end, out.value) && p == end;
}

// A whole line of three integers separated by runs of blanks, nothing before or after (a UCI
// "docID wordID count" entry).
inline bool parse_integer_triple(std::string_view line, std::uint64_t (&out)[3]) {
  const char* p = line.data();
  const char* const end = p + line.size();
  return scan_digits(p, end, out[0]) && scan_separator(p, end, false) && scan_digits(p, end, out[1]) &&
         scan_separator(p, end, false) && scan_digits(p, end, out[2]) && p == end;
}

}  // namespace gyre::data
