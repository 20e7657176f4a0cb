// gyre/data/line_scan.hpp — the usual shapes of numeric fields scanned in one pass, with the general parser's results; anything else is left to it (internal to lib/, not installed).
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace gyre::data {

// Splitting a line into fields and handing each to std::from_chars cost about 70 ns a ratings
// line, most of a file's load time. These scanners take the common shapes in one pass and return
// false for anything else (a sign, an exponent, too many digits, a bad field), so that the
// general parser decides, errors and all; where they return true, the value is the one
// from_chars gives.

// Eight bytes as a little-endian word: the first byte lowest.
inline std::uint64_t load_eight(const char* p) {
  std::uint64_t x;
  std::memcpy(&x, p, 8);
  if constexpr (std::endian::native == std::endian::big) x = __builtin_bswap64(x);
  return x;
}

// A word whose byte j is non-zero exactly where byte j of x is not an ASCII digit: its high
// nibble is not 3, or its low nibble plus 6 carries into bit 4 (a low nibble above 9). The
// nibbles are added apart, so no carry crosses into the next byte.
inline std::uint64_t non_digit_bytes(std::uint64_t x) {
  constexpr std::uint64_t kHigh = 0xF0F0F0F0F0F0F0F0, kLow = 0x0F0F0F0F0F0F0F0F;
  return ((x & kHigh) ^ 0x3030303030303030) | (((x & kLow) + 0x0606060606060606) & 0x1010101010101010);
}

// The number written by eight digit values (0 to 9), one a byte, the first (most significant)
// in the lowest byte: neighbouring bytes, then 16-bit halves, then 32-bit halves are joined as
// higher·10^n + lower, each lane staying below its width, so three multiplies instead of a
// chain of eight.
inline std::uint64_t eight_digit_value(std::uint64_t d) {
  d = ((d * 10) + (d >> 8)) & 0x00FF00FF00FF00FF;
  d = ((d * 100) + (d >> 16)) & 0x0000FFFF0000FFFF;
  return ((d * 10000) + (d >> 32)) & 0xFFFFFFFF;
}

// The decimal digits at p appended to `v` (unchecked: a caller refuses more than fit, and an
// overflow only wraps); p moves past them. Returns how many there were. Eight bytes are looked
// at a time where eight remain: the digits that start them (a run of n < 8 is shifted up so
// that the bytes below it read as leading zeros) join `v` at once.
[[gnu::always_inline]] inline std::size_t take_digits(const char*& p, const char* end, std::uint64_t& v) {
  static constexpr std::uint64_t kPowersOf10[] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000};
  const char* const start = p;
  while (end - p >= 8) {
    const std::uint64_t x = load_eight(p);
    const std::uint64_t stops = non_digit_bytes(x);
    // Subtracting '0' from each byte borrows only out of a non-digit, into the bytes after it,
    // which the shift drops.
    const std::uint64_t digits = x - 0x3030303030303030;
    if (stops == 0) {
      v = v * kPowersOf10[8] + eight_digit_value(digits);
      p += 8;
      continue;
    }
    const auto n = static_cast<unsigned>(std::countr_zero(stops)) / 8;
    if (n > 0) v = v * kPowersOf10[n] + eight_digit_value(digits << (8 * (8 - n)));
    p += n;
    return static_cast<std::size_t>(p - start);
  }
  while (p < end && static_cast<unsigned char>(*p - '0') < 10) v = v * 10 + static_cast<std::uint64_t>(*p++ - '0');
  return static_cast<std::size_t>(p - start);
}

// At p: 1 to 18 decimal digits (no sign); p moves past them.
[[gnu::always_inline]] inline bool scan_digits(const char*& p, const char* end, std::uint64_t& value) {
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
[[gnu::always_inline]] inline bool scan_double(const char*& p, const char* end, double& value) {
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
[[gnu::always_inline]] inline bool scan_float(const char*& p, const char* end, float& value) {
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
