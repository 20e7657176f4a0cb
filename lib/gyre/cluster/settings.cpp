// gyre/cluster/settings.cpp — job settings: canonical encoding, defensive decoding, digest, first difference.
#include "gyre/cluster/settings.hpp"

#include <sodium.h>

#include <algorithm>
#include <cstdint>
#include <stdexcept>

#include "gyre/wire/codec.hpp"

namespace gyre::cluster {
namespace {

void put_u32(std::vector<std::byte>& out, std::size_t value) {
  for (int shift = 0; shift < 32; shift += 8) out.push_back(static_cast<std::byte>(value >> shift));
}

void put_text(std::vector<std::byte>& out, const std::string& s) {
  put_u32(out, s.size());
  const auto* p = reinterpret_cast<const std::byte*>(s.data());
  out.insert(out.end(), p, p + s.size());
}

class Reader {
 public:
  explicit Reader(std::span<const std::byte> bytes) : bytes_(bytes) {}
  std::size_t left() const { return bytes_.size() - at_; }
  std::uint32_t u32() {
    if (left() < 4) throw wire::DecodeError("settings truncated");
    std::uint32_t v = 0;
    for (int i = 0; i < 4; ++i)
      v |= std::to_integer<std::uint32_t>(bytes_[at_ + static_cast<std::size_t>(i)]) << (8 * i);
    at_ += 4;
    return v;
  }
  std::string text() {
    const std::uint32_t n = u32();
    if (n > left()) throw wire::DecodeError("settings text of " + std::to_string(n) + " bytes past the end");
    std::string s(reinterpret_cast<const char*>(bytes_.data() + at_), n);
    at_ += n;
    return s;
  }

 private:
  std::span<const std::byte> bytes_;
  std::size_t at_ = 0;
};

// Keeps a reason readable however long a value is.
std::string shown(const std::string& value) {
  constexpr std::size_t kShown = 200;
  return value.size() <= kShown ? value : value.substr(0, kShown) + "...";
}

const std::string* find(const JobSettings& settings, const std::string& name) {
  for (const auto& [n, v] : settings)
    if (n == name) return &v;
  return nullptr;
}

}  // namespace

std::vector<std::byte> encode_settings(const JobSettings& settings) {
  std::vector<std::byte> out;
  put_u32(out, settings.size());
  for (const auto& [name, value] : settings) {
    if (out.size() + 8 + name.size() + value.size() > kMaxSettingsBytes)
      throw std::invalid_argument("the job's settings take more than " + std::to_string(kMaxSettingsBytes) +
                                  " bytes (at " + shown(name) + ")");
    put_text(out, name);
    put_text(out, value);
  }
  return out;
}

JobSettings decode_settings(std::span<const std::byte> bytes) {
  if (bytes.size() > kMaxSettingsBytes)
    throw wire::DecodeError("settings over " + std::to_string(kMaxSettingsBytes) + " bytes");
  Reader in(bytes);
  const std::uint32_t count = in.u32();
  if (count > in.left() / 8) throw wire::DecodeError("settings count " + std::to_string(count) + " past the end");
  JobSettings out;
  out.reserve(count);
  for (std::uint32_t i = 0; i < count; ++i) {
    auto name = in.text();
    auto value = in.text();
    out.emplace_back(std::move(name), std::move(value));
  }
  if (in.left() != 0) throw wire::DecodeError("settings have trailing bytes");
  return out;
}

std::string settings_digest(const JobSettings& settings) {
  if (sodium_init() < 0) throw std::runtime_error("libsodium could not be initialised");
  const auto bytes = encode_settings(settings);
  unsigned char hash[16];
  crypto_generichash(hash, sizeof hash, reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size(), nullptr, 0);
  static const char kHex[] = "0123456789abcdef";
  std::string out;
  for (const unsigned char b : hash) {
    out += kHex[b >> 4];
    out += kHex[b & 15];
  }
  return out;
}

std::string settings_difference(const JobSettings& theirs, const std::string& theirs_name, const JobSettings& ours,
                                const std::string& ours_name) {
  if (theirs == ours) return {};
  const std::string head = theirs_name + "'s settings differ from " + ours_name + "'s: ";
  const auto value_on = [](const std::string* v) { return v ? shown(*v) : std::string("not set"); };
  // In our order first, then what only they have: the first setting a reader would look for.
  for (const auto& [name, value] : ours) {
    const std::string* their = find(theirs, name);
    if (!their || *their != value)
      return head + shown(name) + " is " + value_on(their) + " on " + theirs_name + ", " + shown(value) + " on " +
             ours_name;
  }
  for (const auto& [name, value] : theirs)
    if (!find(ours, name))
      return head + shown(name) + " is " + shown(value) + " on " + theirs_name + ", not set on " + ours_name;
  return head + "the same settings in another order, or one repeated";
}

}  // namespace gyre::cluster
