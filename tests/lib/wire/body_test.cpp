// tests/lib/wire/body_test.cpp — wire::Reader and wire::Writer: exact little-endian bytes, round trips, every bound.
#include <doctest/doctest.h>

#include <cstdint>
#include <functional>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "gyre/wire/body.hpp"

using namespace gyre;
using wire::DecodeError;
using wire::Reader;
using wire::Writer;

namespace {

std::vector<std::uint8_t> octets(const Buffer& b) {
  std::vector<std::uint8_t> out;
  for (const std::byte x : b.bytes()) out.push_back(std::to_integer<std::uint8_t>(x));
  return out;
}

Buffer buffer_of(const std::vector<std::uint8_t>& v) {
  Buffer b(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) b.data()[i] = std::byte{v[i]};
  return b;
}

std::string decode_error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const DecodeError& e) {
    return e.what();
  }
  return "(no DecodeError)";
}

enum class Colour : std::uint16_t { kRed = 0x0A0B };

}  // namespace

TEST_CASE("the writer puts every field little-endian, whatever the host") {
  Writer w(1 + 2 + 4 + 8 + 4 + 8 + 2);
  w.put(std::uint8_t{0xAB})
      .put(std::uint16_t{0x0102})
      .put(std::uint32_t{0x01020304})
      .put(std::int64_t{-2})
      .put(1.0f)   // 0x3F800000
      .put(-2.0)   // 0xC000000000000000
      .put(Colour::kRed);
  CHECK(octets(w.finish()) == std::vector<std::uint8_t>{0xAB, 0x02, 0x01, 0x04, 0x03, 0x02, 0x01,  //
                                                         0xFE, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
                                                         0x00, 0x00, 0x80, 0x3F,  //
                                                         0, 0, 0, 0, 0, 0, 0x00, 0xC0, 0x0B, 0x0A});
}

TEST_CASE("arrays and texts: bulk little-endian elements, a u32 length before a text") {
  const std::vector<float> floats{1.0f, -1.0f};
  const std::vector<std::uint32_t> ids{0x11223344, 5};
  Writer w(8 + 8 + 4 + 2);
  w.put_array<float>(floats).put_array<std::uint32_t>(ids).put_text("hi", 2);
  CHECK(octets(w.finish()) == std::vector<std::uint8_t>{0x00, 0x00, 0x80, 0x3F, 0x00, 0x00, 0x80, 0xBF,  //
                                                         0x44, 0x33, 0x22, 0x11, 0x05, 0x00, 0x00, 0x00,  //
                                                         0x02, 0x00, 0x00, 0x00, 'h', 'i'});
  CHECK(wire::detail::swap_bytes(std::uint32_t{0x01020304}) == 0x04030201u);
  CHECK(wire::detail::swap_bytes(std::uint64_t{0x0102030405060708}) == 0x0807060504030201ull);
  static_assert(wire::detail::swap_bytes(std::uint16_t{0x0102}) == 0x0201);
}

TEST_CASE("what the writer puts, the reader gets back, and finish() accepts a fully read body") {
  const std::vector<double> values{0.5, -1e300, 3.25};
  Writer w(8 + 4 + 8 * 3 + 4 + 5 + 2);
  w.put(std::int64_t{-42}).put(std::uint32_t{3}).put_array<double>(values).put_text("gyre!", 100).put(Colour::kRed);
  const Buffer body = w.finish();
  Reader r(body.bytes());
  CHECK(r.get<std::int64_t>("a prefix") == -42);
  const auto n = r.count(sizeof(double), "a value count");
  CHECK(r.get_array<double>(n, "the values") == values);
  CHECK(r.get_text(100, "a name") == "gyre!");
  CHECK(r.get<Colour>("a colour") == Colour::kRed);
  CHECK(r.remaining() == 0);
  CHECK_NOTHROW(r.finish());

  std::vector<double> into(3);
  Reader again(body.bytes());
  (void)again.get<std::int64_t>("a prefix");
  (void)again.get<std::uint32_t>("a count");
  again.get_array_into<double>(into, "the values");
  CHECK(into == values);
}

TEST_CASE("a body cut anywhere is refused, naming the field it stops in") {
  Writer w(8 + 4 + 16);
  w.put(std::uint64_t{7}).put(std::uint32_t{2}).put_array<std::uint64_t>(std::vector<std::uint64_t>{1, 2});
  const Buffer body = w.finish();
  for (std::size_t cut = 0; cut < body.size(); ++cut) {
    Reader r(body.bytes().first(cut), "test message: ");
    const std::string e = decode_error_of([&] {
      (void)r.get<std::uint64_t>("the header");
      (void)r.get_array<std::uint64_t>(r.count(8, "a key count"), "the keys");
    });
    CAPTURE(cut);
    CHECK(e.rfind("test message: ", 0) == 0);
    if (cut < 8) CHECK(e == "test message: truncated at the header");
    else if (cut < 12) CHECK(e == "test message: truncated at a key count");
    else CHECK(e.find("a key count of 2 does not fit the") != std::string::npos);
  }
}

TEST_CASE("trailing bytes are an error") {
  const Buffer body = buffer_of({1, 0, 0, 0, 9});
  Reader r(body.bytes(), "ctx: ");
  CHECK(r.get<std::uint32_t>("a count") == 1);
  CHECK(decode_error_of([&] { r.finish(); }) == "ctx: 1 trailing bytes");
}

TEST_CASE("counts are checked against the bytes left and the caller's cap before anything is allocated") {
  // 2^61 eight-byte values would be a length_error or bad_alloc if a vector were sized first.
  const Buffer huge = buffer_of({0, 0, 0, 0, 0, 0, 0, 0x20, 1, 2, 3, 4, 5, 6, 7, 8});
  Reader a(huge.bytes());
  CHECK(decode_error_of([&] { (void)a.count<std::uint64_t>(8, "a length"); }) ==
        "a length of 2305843009213693952 does not fit the 8 bytes left");
  Reader b(huge.bytes());
  CHECK(decode_error_of([&] { (void)b.get_array<double>(std::size_t{1} << 61, "values"); }) ==
        "values of 2305843009213693952 does not fit the 16 bytes left");

  const Buffer three = buffer_of({3, 0, 0, 0, 1, 2, 3});
  Reader c(three.bytes());
  CHECK(decode_error_of([&] { (void)c.count(1, "an id count", 2); }) == "an id count of 3 is over the limit of 2");
  Reader d(three.bytes());
  CHECK(d.count(1, "an id count", 3) == 3);
  // Items of no bytes: only the cap bounds the count.
  Reader e(three.bytes());
  CHECK(decode_error_of([&] { (void)e.check_count(1'000'000, 0, "empty things", 1000); }) ==
        "empty things of 1000000 is over the limit of 1000");
}

TEST_CASE("texts: the length is checked against the cap and the bytes left before the string is made") {
  const Buffer over = buffer_of({0xFF, 0xFF, 0xFF, 0xFF, 'a'});
  Reader a(over.bytes());
  CHECK(decode_error_of([&] { (void)a.get_text(std::numeric_limits<std::uint32_t>::max(), "a name"); }) ==
        "a name of 4294967295 does not fit the 1 bytes left");
  const Buffer long_text = buffer_of({3, 0, 0, 0, 'a', 'b', 'c'});
  Reader b(long_text.bytes());
  CHECK(decode_error_of([&] { (void)b.get_text(2, "a name"); }) == "a name of 3 is over the limit of 2");
  Reader c(long_text.bytes());
  CHECK(c.get_text(3, "a name") == "abc");

  Writer w(4 + 3);
  CHECK_THROWS_AS(w.put_text("abcd", 3), std::length_error);
}

TEST_CASE("the rest of a body as an array: a whole number of values, at most the cap") {
  const Buffer seven = buffer_of({1, 0, 0, 0, 2, 0, 0});
  Reader a(seven.bytes());
  CHECK(decode_error_of([&] { (void)a.get_rest<std::uint32_t>("a key list"); }) ==
        "a key list of 7 bytes is not a whole number of 4-byte values");
  const Buffer eight = buffer_of({1, 0, 0, 0, 2, 0, 0, 0});
  Reader b(eight.bytes());
  CHECK(decode_error_of([&] { (void)b.get_rest<std::uint32_t>("a key list", 1); }) == "a key list of 2 is over the limit of 1");
  Reader c(eight.bytes());
  CHECK(c.get_rest<std::uint32_t>("a key list", 2) == std::vector<std::uint32_t>{1, 2});
  CHECK_NOTHROW(c.finish());
  Reader empty({});
  CHECK(empty.get_rest<double>("values").empty());
}

TEST_CASE("a writer refuses to overflow or to finish early; it may write into the caller's memory") {
  Writer w(4);
  CHECK_THROWS_AS(w.put(std::uint64_t{1}), std::logic_error);
  w.put(std::uint16_t{1});
  CHECK_THROWS_AS((void)w.finish(), std::logic_error);

  std::vector<std::byte> mine(6);
  Writer into(mine);
  into.put(std::uint16_t{0x0102}).put(std::int32_t{-1});
  CHECK(into.finish().empty());
  CHECK(std::to_integer<int>(mine[0]) == 2);
  CHECK(std::to_integer<int>(mine[5]) == 0xFF);
}

TEST_CASE("in-place conversion and loads are the identity on a little-endian host and swaps on a big one") {
  std::vector<std::uint32_t> v{0x01020304};
  wire::little_in_place<std::uint32_t>(v);
  CHECK(v[0] == (wire::kHostIsLittle ? 0x01020304u : 0x04030201u));
  const Buffer b = buffer_of({0x04, 0x03, 0x02, 0x01});
  std::uint32_t x = 0;
  wire::load_little<std::uint32_t>(b.bytes(), std::span<std::uint32_t>(&x, 1));
  CHECK(x == 0x01020304u);
  CHECK(wire::little(std::uint8_t{7}) == 7);
}
