// gyre/cluster/settings.cpp — job settings: canonical encoding, defensive decoding, digest, first difference.
#include "gyre/cluster/launch.hpp"

#include <sodium.h>

#include <algorithm>
#include <cstdint>
#include <stdexcept>

#include "gyre/wire/body.hpp"

namespace gyre::cluster {
namespace {

// Each setting is a name and a value, each a u32 length and its bytes (wire/body.hpp).
constexpr std::size_t kSettingOverhead = 2 * sizeof(std::uint32_t);

// Keeps a reason readable however long a value is.
std::string shown(const std::string& value) {
  constexpr std::size_t kShown = 200;
  if (value.empty()) return "unset";  // a flag without a default, not given: not a blank in the sentence
  return value.size() <= kShown ? value : value.substr(0, kShown) + "...";
}

const std::string* find(const JobSettings& settings, const std::string& name) {
  for (const auto& [n, v] : settings)
    if (n == name) return &v;
  return nullptr;
}

}  // namespace

std::vector<std::byte> encode_settings(const JobSettings& settings) {
  std::size_t size = sizeof(std::uint32_t);
  for (const auto& [name, value] : settings) {
    size += kSettingOverhead + name.size() + value.size();
    if (size > kMaxSettingsBytes)
      throw std::invalid_argument("the job's settings take more than " + std::to_string(kMaxSettingsBytes) +
                                  " bytes (at " + shown(name) + ")");
  }
  std::vector<std::byte> out(size);
  wire::Writer w(out);
  w.put(static_cast<std::uint32_t>(settings.size()));
  for (const auto& [name, value] : settings) w.put_text(name, kMaxSettingsBytes).put_text(value, kMaxSettingsBytes);
  w.finish();
  return out;
}

JobSettings decode_settings(std::span<const std::byte> bytes) {
  if (bytes.size() > kMaxSettingsBytes)
    throw wire::DecodeError("settings over " + std::to_string(kMaxSettingsBytes) + " bytes");
  wire::Reader in(bytes, "settings: ");
  const std::size_t count = in.count(kSettingOverhead, "the settings count");
  JobSettings out;
  out.reserve(count);
  for (std::size_t i = 0; i < count; ++i) {
    auto name = in.get_text(kMaxSettingsBytes, "a setting's name");
    auto value = in.get_text(kMaxSettingsBytes, "a setting's value");
    out.emplace_back(std::move(name), std::move(value));
  }
  in.finish();
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
