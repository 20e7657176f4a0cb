// gyre/data/manifest.cpp — writes a partition directory and loads it back with cross-checks.
#include "gyre/data/manifest.hpp"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "gyre/base/atomic_file.hpp"
#include "gyre/base/crc32c.hpp"
#include "gyre/base/input_error.hpp"
#include "gyre/data/partition.hpp"
#include "gyre/data/shard_file.hpp"

namespace gyre::data {
namespace {

using nlohmann::json;

constexpr const char* kFormat = "gyre-partition";
constexpr int kManifestVersion = 1;

std::string shard_name(std::size_t index) {
  char name[32];
  std::snprintf(name, sizeof name, "part-%05zu.shard", index);
  return name;
}

std::uint32_t records_checksum(const RatingsSet& set) {
  return crc32c(set.ratings.data(), set.ratings.size() * sizeof(Rating));
}

// Reads one field, turning a missing key or a wrong type into an error that names the field.
template <typename T>
T field(const std::filesystem::path& file, const json& object, const char* key, const char* type) {
  const auto it = object.find(key);
  if (it == object.end()) throw InputError(file, 0, std::string("field \"") + key + "\" (" + type + ")", "none");
  try {
    return it->template get<T>();
  } catch (const json::exception&) {
    throw InputError(file, 0, std::string("field \"") + key + "\" as " + type, it->dump());
  }
}

template <typename T>
T unsigned_field(const std::filesystem::path& file, const json& object, const char* key, std::uint64_t max) {
  const auto it = object.find(key);
  if (it == object.end() || !it->is_number_unsigned() || it->template get<std::uint64_t>() > max)
    throw InputError(file, 0, std::string("field \"") + key + "\" as an integer in [0, " + std::to_string(max) + "]",
                     it == object.end() ? "none" : it->dump());
  return static_cast<T>(it->template get<std::uint64_t>());
}

json parse_json(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw InputError(file, 0, "a readable manifest file", "no such file");
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  try {
    return json::parse(text);
  } catch (const json::parse_error& e) {
    // The parser reports a byte offset; a line number is what a person can act on.
    const std::size_t at = std::min<std::size_t>(e.byte == 0 ? 0 : e.byte - 1, text.size());
    const auto line = static_cast<std::size_t>(std::count(text.begin(), text.begin() + static_cast<long>(at), '\n')) + 1;
    throw InputError(file, line, "valid JSON", text.empty() ? "an empty file" : e.what());
  }
}

}  // namespace

void write_ratings_partition(const std::filesystem::path& dir, const std::vector<RatingsSet>& shards) {
  if (shards.empty()) throw std::invalid_argument("write_ratings_partition: no shards");
  for (const RatingsSet& s : shards)
    if (s.users != shards.front().users || s.items != shards.front().items)
      throw std::invalid_argument("write_ratings_partition: shards disagree on the id space");
  std::filesystem::create_directories(dir);
  // While shards are being replaced the directory must not look complete, so an old manifest
  // goes first; the new one is written last.
  std::filesystem::remove(dir / kManifestName);

  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  std::uint64_t total = 0;
  for (std::size_t i = 0; i < shards.size(); ++i) {
    const std::string name = shard_name(i);
    write_ratings_shard(dir / name, shards[i]);
    list.push_back({{"file", name}, {"records", shards[i].ratings.size()}, {"checksum", records_checksum(shards[i])}});
    total += shards[i].ratings.size();
  }
  // ordered_json keeps the documented key order, which makes the file easy to read by eye.
  const nlohmann::ordered_json manifest = {{"format", kFormat},
                         {"version", kManifestVersion},
                         {"kind", "ratings"},
                         {"parts", shards.size()},
                         {"users", shards.front().users},
                         {"items", shards.front().items},
                         {"records", total},
                         {"balance", balance(shards)},
                         {"shards", list}};
  AtomicFile out(dir / kManifestName);
  out.stream() << manifest.dump(2) << '\n';
  out.commit();
}

Manifest read_manifest(const std::filesystem::path& dir) {
  const std::filesystem::path file = dir / kManifestName;
  const json doc = parse_json(file);
  if (!doc.is_object()) throw InputError(file, 0, "a JSON object", doc.dump());
  if (field<std::string>(file, doc, "format", "a string") != kFormat)
    throw InputError(file, 0, std::string("\"format\": \"") + kFormat + "\"", doc["format"].dump());
  if (doc.value("version", json()) != kManifestVersion)
    throw InputError(file, 0, "\"version\": " + std::to_string(kManifestVersion), doc.value("version", json()).dump());

  Manifest m;
  m.kind = field<std::string>(file, doc, "kind", "a string");
  if (m.kind != "ratings") throw InputError(file, 0, "\"kind\": \"ratings\"", m.kind);
  m.users = unsigned_field<std::uint32_t>(file, doc, "users", kMaxId + 1);
  m.items = unsigned_field<std::uint32_t>(file, doc, "items", kMaxId + 1);
  m.records = unsigned_field<std::uint64_t>(file, doc, "records", UINT64_MAX);
  m.balance = field<double>(file, doc, "balance", "a number");
  const auto parts = unsigned_field<std::uint64_t>(file, doc, "parts", UINT32_MAX);
  const auto shards = doc.find("shards");
  if (shards == doc.end() || !shards->is_array() || shards->size() != parts)
    throw InputError(file, 0, "\"shards\" as an array of " + std::to_string(parts) + " entries (\"parts\")",
                     shards == doc.end() ? "none" : std::to_string(shards->size()) + " entries");

  std::uint64_t total = 0;
  for (const json& s : *shards) {
    if (!s.is_object()) throw InputError(file, 0, "shard entries as JSON objects", s.dump());
    ShardEntry e;
    e.file = field<std::string>(file, s, "file", "a string");
    // Entries are plain names in the directory; anything else could point outside it.
    if (e.file.empty() || e.file.find('/') != std::string::npos || e.file == "." || e.file == "..")
      throw InputError(file, 0, "a shard file name without directories", e.file);
    e.records = unsigned_field<std::uint64_t>(file, s, "records", UINT64_MAX);
    e.checksum = unsigned_field<std::uint32_t>(file, s, "checksum", UINT32_MAX);
    total += e.records;
    m.shards.push_back(std::move(e));
  }
  if (total != m.records)
    throw InputError(file, 0, "\"records\" equal to the sum over shards, " + std::to_string(total),
                     std::to_string(m.records));
  return m;
}

std::vector<RatingsSet> read_ratings_partition(const std::filesystem::path& dir) {
  const Manifest m = read_manifest(dir);
  const std::string listed = std::string("as listed in ") + kManifestName;
  std::vector<RatingsSet> shards;
  shards.reserve(m.shards.size());
  for (const ShardEntry& e : m.shards) {
    const std::filesystem::path file = dir / e.file;
    std::error_code ec;
    if (!std::filesystem::exists(file, ec)) throw InputError(file, 0, "the shard file " + listed, "no such file");
    RatingsSet s = read_ratings_shard(file);
    if (s.ratings.size() != e.records)
      throw InputError(file, 0, std::to_string(e.records) + " records " + listed, std::to_string(s.ratings.size()));
    if (const std::uint32_t crc = records_checksum(s); crc != e.checksum)
      throw InputError(file, 0, "checksum " + std::to_string(e.checksum) + " " + listed, std::to_string(crc));
    if (s.users != m.users || s.items != m.items)
      throw InputError(file, 0,
                       "id space " + std::to_string(m.users) + "x" + std::to_string(m.items) + " " + listed,
                       std::to_string(s.users) + "x" + std::to_string(s.items));
    shards.push_back(std::move(s));
  }
  return shards;
}

}  // namespace gyre::data
