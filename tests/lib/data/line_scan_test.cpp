// tests/lib/data/line_scan_test.cpp — the one-pass scanners: the shapes they take, the ones they leave to the general parsers, and values bitwise std::from_chars's.
#include <doctest/doctest.h>

#include <bit>
#include <charconv>
#include <cstdint>
#include <random>
#include <string>

#include "gyre/data/line_scan.hpp"

using gyre::data::parse_triple_line;
using gyre::data::TripleFields;
using gyre::data::parse_integer_triple;

namespace {

float from_chars_float(const std::string& s) {
  float v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  REQUIRE(ec == std::errc());
  REQUIRE(end == s.data() + s.size());
  return v;
}

// m with k digits after the point ("0.0042" for m = 42, k = 4), negative when asked.
std::string decimal(std::uint64_t m, int k, bool negative) {
  std::string digits = std::to_string(m);
  if (static_cast<int>(digits.size()) <= k) digits.insert(0, static_cast<std::size_t>(k + 1) - digits.size(), '0');
  if (k > 0) digits.insert(digits.size() - static_cast<std::size_t>(k), ".");
  return (negative ? "-" : "") + digits;
}

}  // namespace

TEST_CASE("parse_triple_line takes ids and a value separated by blanks or a comma") {
  TripleFields t;
  REQUIRE(parse_triple_line("12 345 3.5", t));
  CHECK(t.first == 12);
  CHECK(t.second == 345);
  CHECK(t.value == 3.5f);
  REQUIRE(parse_triple_line("0\t\t7\t-2", t));
  CHECK(t.first == 0);
  CHECK(t.second == 7);
  CHECK(t.value == -2.0f);
  REQUIRE(parse_triple_line("007,8,0.25", t));
  CHECK(t.first == 7);
  CHECK(t.value == 0.25f);
  REQUIRE(parse_triple_line("1 2 -0", t));
  CHECK(std::bit_cast<std::uint32_t>(t.value) == std::bit_cast<std::uint32_t>(-0.0f));
  REQUIRE(parse_triple_line("999999999999999999 1 0.123456789", t));  // 18 digits; 9 significant
  CHECK(t.first == 999999999999999999u);
  CHECK(t.value == 0.123456789f);
  REQUIRE(parse_triple_line("1 2 16777218", t));
  CHECK(t.value == 16777218.0f);
}

TEST_CASE("parse_triple_line leaves every other shape to the general parser") {
  TripleFields t;
  for (const char* line : {"", " 1 2 3", "1 2 3 ", "1 2 3 # note", "1, 2, 3", "1 ,2,3", "1,,2,3", "1 2", "1 2 3 4",
                           "1 2 3e5", "1 2 3.", "1 2 .5", "1 2 +3", "-1 2 3", "1 -2 3", "1 2 nan", "1 2 inf",
                           "1 2 16777217", "1 2 16777219", "1 2 1234567890.123456", "1 2 1234567890123456",
                           "1234567890123456789 2 3", "a 2 3", "1 b 3", "1 2 3x", "%comment", "1;2;3"}) {
    CAPTURE(line);
    CHECK_FALSE(parse_triple_line(line, t));
  }
  // 2^24 + 1 and 2^24 + 3 lie halfway between two floats: from_chars decides those.
}

TEST_CASE("parse_triple_line's values are bitwise std::from_chars's, wherever it takes them") {
  std::mt19937_64 rng(17);
  std::uniform_int_distribution<int> digits(1, 15);
  std::size_t taken = 0;
  const auto check = [&](const std::string& value) {
    TripleFields t;
    if (!parse_triple_line("1 2 " + value, t)) return;
    ++taken;
    const float expected = from_chars_float(value);
    if (std::bit_cast<std::uint32_t>(t.value) != std::bit_cast<std::uint32_t>(expected))
      FAIL(value << ": " << t.value << " vs " << expected);
  };
  for (int i = 0; i < 300000; ++i) {
    // Ratings as written (a few digits), floats printed shortest (up to 9), and up to the limit.
    const int n = i % 3 == 0 ? digits(rng) : i % 3 == 1 ? 1 + i % 4 : 6 + i % 4;
    std::uint64_t m = rng() % 1000000000000000u;
    for (int cut = 15; cut > n; --cut) m /= 10;
    check(decimal(m, static_cast<int>(rng() % static_cast<std::uint64_t>(n + 1)), i % 5 == 0));
  }
  CHECK(taken > 295000);  // the rest: 16 digits, a 15-digit fraction with its leading "0."
  // Near the float midpoints of large integers and of 9-digit decimals, where two roundings
  // could give another float than one.
  for (std::uint64_t m = (std::uint64_t{1} << 24) - 1000; m <= (std::uint64_t{1} << 24) + 1000; ++m)
    for (int k = 0; k <= 9; ++k) check(decimal(m, k, false));
  for (std::uint64_t m = (std::uint64_t{1} << 30) - 1000; m <= (std::uint64_t{1} << 30) + 1000; ++m)
    for (int k = 0; k <= 9; ++k) check(decimal(m, k, false));
  for (int i = 0; i < 100000; ++i) {
    // The shortest decimal of a random float, and its neighbours in the last digit.
    const float f = std::bit_cast<float>(static_cast<std::uint32_t>(rng() % 0x7f000000u));
    char buf[64];
    const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, f, std::chars_format::fixed);
    if (ec != std::errc() || end - buf > 16) continue;
    check(std::string(buf, end));
  }
}

TEST_CASE("scan_double's values are bitwise std::from_chars's, and it leaves what it cannot take exactly") {
  std::mt19937_64 rng(29);
  std::size_t taken = 0;
  for (int i = 0; i < 300000; ++i) {
    const int n = 1 + static_cast<int>(rng() % 15);
    std::uint64_t m = rng() % 1000000000000000u;
    for (int cut = 15; cut > n; --cut) m /= 10;
    const std::string text = decimal(m, static_cast<int>(rng() % static_cast<std::uint64_t>(n + 1)), i % 4 == 0);
    const char* p = text.data();
    double d = 0;
    if (!gyre::data::scan_double(p, text.data() + text.size(), d)) continue;
    ++taken;
    REQUIRE(p == text.data() + text.size());
    double expected = 0;
    std::from_chars(text.data(), text.data() + text.size(), expected);
    if (std::bit_cast<std::uint64_t>(d) != std::bit_cast<std::uint64_t>(expected)) FAIL(text << ": " << d << " vs " << expected);
  }
  CHECK(taken > 295000);
  for (const char* text : {"", "-", ".5", "5.", "+1", "1e5", "1234567890123456", "0.1234567890123456", "nan"}) {
    CAPTURE(text);
    const std::string s = text;
    const char* p = s.data();
    double d = 0;
    CHECK_FALSE((gyre::data::scan_double(p, s.data() + s.size(), d) && p == s.data() + s.size()));
  }
}

TEST_CASE("parse_integer_triple takes three integers separated by blanks, nothing else") {
  std::uint64_t f[3];
  REQUIRE(parse_integer_triple("12 7\t\t3", f));
  CHECK(f[0] == 12);
  CHECK(f[1] == 7);
  CHECK(f[2] == 3);
  for (const char* line : {"", "1,2,3", " 1 2 3", "1 2 3 ", "1 2", "1 2 3 4", "1 2 3.0", "1 2 -3", "1 2 x",
                           "1234567890123456789 2 3"}) {
    CAPTURE(line);
    CHECK_FALSE(parse_integer_triple(line, f));
  }
}

TEST_CASE("take_digits reads eight bytes at a time as the byte-by-byte loop reads one") {
  // Runs of 0 to 20 digits followed by every byte value, at every distance from the end of the
  // text (so that the word-wide path, its shifted partial word and the byte tail all run).
  const auto by_bytes = [](const char*& p, const char* end, std::uint64_t& v) {
    const char* const start = p;
    while (p < end && *p >= '0' && *p <= '9') v = v * 10 + static_cast<std::uint64_t>(*p++ - '0');
    return static_cast<std::size_t>(p - start);
  };
  std::mt19937_64 rng(5);
  for (int run = 0; run <= 20; ++run)
    for (int stop = 0; stop < 256; ++stop)
      for (int tail = 0; tail <= 9; ++tail) {
        std::string text;
        for (int i = 0; i < run; ++i) text.push_back(static_cast<char>('0' + rng() % 10));
        text.push_back(static_cast<char>(stop));
        for (int i = 0; i < tail; ++i) text.push_back(static_cast<char>(rng()));
        for (std::size_t cut = 0; cut <= text.size(); ++cut) {
          const char* p = text.data();
          const char* q = text.data();
          std::uint64_t v = 7, w = 7;  // appended to what is there
          const std::size_t n = gyre::data::take_digits(p, text.data() + cut, v);
          const std::size_t m = by_bytes(q, text.data() + cut, w);
          REQUIRE(n == m);
          REQUIRE(p == q);
          REQUIRE(v == w);
        }
      }
}
