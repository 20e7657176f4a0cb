// tests/lib/cluster/settings_test.cpp — job settings: encoding both ways, hostile bytes refused, digest, first difference.
#include <doctest/doctest.h>

#include <cstring>
#include <stdexcept>

#include "gyre/cluster/launch.hpp"
#include "gyre/wire/codec.hpp"

using namespace gyre::cluster;

namespace {

const JobSettings kSettings{
    {"--lambda", "0.05"}, {"--epochs", "10"}, {"input --train", "12345 bytes, crc32c 0x1a2b3c4d"}};

std::vector<std::byte> u32s(std::initializer_list<std::uint32_t> values) {
  std::vector<std::byte> out;
  for (auto v : values)
    for (int shift = 0; shift < 32; shift += 8) out.push_back(static_cast<std::byte>(v >> shift));
  return out;
}

}  // namespace

TEST_CASE("settings survive encoding and decoding, order included") {
  CHECK(decode_settings(encode_settings(kSettings)) == kSettings);
  CHECK(decode_settings(encode_settings({})).empty());
}

TEST_CASE("hostile settings bytes are refused before anything large is allocated") {
  auto bytes = encode_settings(kSettings);
  bytes.pop_back();
  CHECK_THROWS_AS(decode_settings(bytes), gyre::wire::DecodeError);                     // truncated
  CHECK_THROWS_AS(decode_settings(u32s({0xFFFFFFFF})), gyre::wire::DecodeError);        // a huge count
  CHECK_THROWS_AS(decode_settings(u32s({1, 0xFFFFFFF0, 0})), gyre::wire::DecodeError);  // a huge length
  auto trailing = encode_settings(kSettings);
  trailing.push_back(std::byte{0});
  CHECK_THROWS_AS(decode_settings(trailing), gyre::wire::DecodeError);
  CHECK_THROWS_AS(decode_settings(std::vector<std::byte>(kMaxSettingsBytes + 1)), gyre::wire::DecodeError);
}

TEST_CASE("settings over the size limit are refused on the sending side") {
  const JobSettings big{{"--notes", std::string(kMaxSettingsBytes, 'x')}};
  CHECK_THROWS_AS(encode_settings(big), std::invalid_argument);
}

TEST_CASE("the digest is 32 hex digits, the same for equal settings and different otherwise") {
  const auto d = settings_digest(kSettings);
  CHECK(d.size() == 32);
  CHECK(d.find_first_not_of("0123456789abcdef") == std::string::npos);
  CHECK(settings_digest(kSettings) == d);
  auto other = kSettings;
  other[0].second = "0.02";
  CHECK(settings_digest(other) != d);
  auto reordered = kSettings;
  std::swap(reordered[0], reordered[1]);
  CHECK(settings_digest(reordered) != d);
}

TEST_CASE("the first difference names the setting and both values, or what is missing where") {
  CHECK(settings_difference(kSettings, "rank 1", kSettings, "rank 0").empty());
  auto theirs = kSettings;
  theirs[0].second = "0.02";
  CHECK(settings_difference(theirs, "rank 1", kSettings, "rank 0") ==
        "rank 1's settings differ from rank 0's: --lambda is 0.02 on rank 1, 0.05 on rank 0");
  const JobSettings fewer(kSettings.begin(), kSettings.begin() + 2);
  CHECK(settings_difference(fewer, "rank 1", kSettings, "rank 0") ==
        "rank 1's settings differ from rank 0's: input --train is not set on rank 1, 12345 bytes, crc32c 0x1a2b3c4d on "
        "rank 0");
  CHECK(settings_difference(kSettings, "rank 2", fewer, "rank 0") ==
        "rank 2's settings differ from rank 0's: input --train is 12345 bytes, crc32c 0x1a2b3c4d on rank 2, not set on "
        "rank 0");
  auto reordered = kSettings;
  std::swap(reordered[0], reordered[1]);
  CHECK(settings_difference(reordered, "rank 1", kSettings, "rank 0").find("another order") != std::string::npos);
}

TEST_CASE("a setting given no value (a flag without a default, left out) is named as unset, not as a blank") {
  const JobSettings ours{{"--workers", "2"}}, theirs{{"--workers", ""}};
  CHECK(settings_difference(theirs, "the checkpoint", ours, "this run") ==
        "the checkpoint's settings differ from this run's: --workers is unset on the checkpoint, 2 on this run");
}
