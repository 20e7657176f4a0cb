// gyre/data/manifest.cpp — partition manifests (ratings, corpus, rows): writing, and parsing with cross-checks.
#include "gyre/data/manifest.hpp"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "gyre/base/input_error.hpp"
#include "gyre/base/json_input.hpp"
#include "gyre/base/output_file.hpp"
#include "gyre/data/partition.hpp"
#include "gyre/data/shard_file.hpp"

namespace gyre::data {
namespace {

using nlohmann::json;

constexpr const char* kFormat = "gyre-partition";
constexpr int kManifestVersion = 1;

bool is_corpus(const std::string& kind) { return kind == "corpus"; }
bool is_rows(const std::string& kind) { return kind == "rows"; }

// The JSON name of ShardEntry::records / Manifest::records for a kind.
const char* records_key(const std::string& kind) {
  return is_corpus(kind) ? "docs" : is_rows(kind) ? "samples" : "records";
}
// The JSON name of ShardEntry::tokens / Manifest::tokens, or null for ratings, which have none.
const char* tokens_key(const std::string& kind) {
  return is_corpus(kind) ? "tokens" : is_rows(kind) ? "nnz" : nullptr;
}

// Reads one field, turning a missing key or a wrong type into an error that names the field.
template <typename T>
T field(const std::filesystem::path& file, const json& object, const char* key, const char* type) {
  const auto it = object.find(key);
  if (it == object.end()) throw InputError(file, 0, std::string("field \"") + key + "\" (" + type + ")", "none");
  try {
    return it->template get<T>();
  } catch (const json::exception&) {
    throw InputError(file, 0, std::string("field \"") + key + "\" as " + type, json_excerpt(*it));
  }
}

template <typename T>
T unsigned_field(const std::filesystem::path& file, const json& object, const char* key, std::uint64_t max) {
  const auto it = object.find(key);
  if (it == object.end() || !it->is_number_unsigned() || it->template get<std::uint64_t>() > max)
    throw InputError(file, 0, std::string("field \"") + key + "\" as an integer in [0, " + std::to_string(max) + "]",
                     it == object.end() ? "none" : json_excerpt(*it));
  return static_cast<T>(it->template get<std::uint64_t>());
}

json parse_json(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw InputError(file, 0, "a readable manifest file", "no such file");
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return gyre::parse_json(text, file, "valid JSON");
}

const std::string kListed = std::string("as listed in ") + kManifestName;

}  // namespace

bool is_partition_directory(const std::filesystem::path& path) {
  std::error_code ec;
  return std::filesystem::is_directory(path, ec) && std::filesystem::exists(path / kManifestName, ec);
}

std::string shard_file_name(std::size_t index) {
  char name[32];
  std::snprintf(name, sizeof name, "part-%05zu.shard", index);
  return name;
}

void check_ids_unique(const std::filesystem::path& dir, const Manifest& manifest,
                      std::span<const std::span<const std::uint64_t>> ids_per_shard, std::string_view what) {
  const std::vector<MergedRecord> order = merge_by_id(ids_per_shard);
  for (std::size_t i = 1; i < order.size(); ++i) {
    if (order[i].id != order[i - 1].id) continue;
    const auto& first = manifest.shards.at(order[i - 1].shard).file;
    const auto& second = manifest.shards.at(order[i].shard).file;
    throw InputError(dir / second, 0, "each " + std::string(what) + " id in one shard only",
                     std::string(what) + " id " + std::to_string(order[i].id) + " also in " +
                         (first == second ? std::string("this shard") : first));
  }
}

const DirectoryKind& partition_directory() {
  static const DirectoryKind kind{"a gyre-partition directory", [](std::string_view name) {
                                    const bool shard = name.starts_with("part-") && name.ends_with(".shard");
                                    return shard || name == kManifestName || name == "vocab.txt" ||
                                           name == "users.txt" || name == "items.txt" ||
                                           name == "word_counts.txt" || name == "blocks.txt" ||
                                           name == "feature_names.txt";
                                  }};
  return kind;
}

void begin_partition_write(const std::filesystem::path& dir) {
  std::filesystem::create_directories(dir);
  std::filesystem::remove(dir / kManifestName);
}

void write_manifest(const std::filesystem::path& dir, const Manifest& m) {
  const bool corpus = is_corpus(m.kind);
  const char* records = records_key(m.kind);
  const char* tokens = tokens_key(m.kind);
  // ordered_json keeps the documented key order, which makes the file easy to read by eye.
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const ShardEntry& e : m.shards) {
    nlohmann::ordered_json entry = {{"file", e.file}, {records, e.records}};
    if (tokens) entry[tokens] = e.tokens;
    entry["checksum"] = e.checksum;
    if (m.dense_ids) {
      entry["sum"] = e.sum;
      entry["sum_squares"] = e.sum_squares;
    }
    list.push_back(std::move(entry));
  }
  nlohmann::ordered_json doc = {{"format", kFormat}, {"version", kManifestVersion}, {"kind", m.kind},
                                {"parts", m.shards.size()}};
  if (corpus) {
    doc["vocab"] = m.vocab;
    if (m.doc_id_limit > 0) doc["doc_id_limit"] = m.doc_id_limit;
  } else if (is_rows(m.kind)) {
    doc["features"] = m.features;
  } else {
    doc["users"] = m.users;
    doc["items"] = m.items;
    if (m.dense_ids) doc["ids"] = "dense";
  }
  doc[records] = m.records;
  if (tokens) doc[tokens] = m.tokens;
  doc["balance"] = m.balance;
  doc["shards"] = std::move(list);
  OutputFile out(dir / kManifestName);
  out.stream() << doc.dump(2) << '\n';
  out.commit();
}

Manifest read_manifest(const std::filesystem::path& dir) {
  const std::filesystem::path file = dir / kManifestName;
  const json doc = parse_json(file);
  if (!doc.is_object()) throw InputError(file, 0, "a JSON object", json_excerpt(doc));
  if (field<std::string>(file, doc, "format", "a string") != kFormat)
    throw InputError(file, 0, std::string("\"format\": \"") + kFormat + "\"", json_excerpt(doc["format"]));
  if (doc.value("version", json()) != kManifestVersion)
    throw InputError(file, 0, "\"version\": " + std::to_string(kManifestVersion), json_excerpt(doc.value("version", json())));

  Manifest m;
  m.kind = field<std::string>(file, doc, "kind", "a string");
  if (m.kind != "ratings" && m.kind != "corpus" && m.kind != "rows")
    throw InputError(file, 0, "\"kind\": \"ratings\", \"corpus\" or \"rows\"", m.kind);
  const char* records = records_key(m.kind);
  const char* tokens_name = tokens_key(m.kind);
  if (tokens_name) m.tokens = unsigned_field<std::uint64_t>(file, doc, tokens_name, UINT64_MAX);
  if (is_corpus(m.kind)) {
    m.vocab = unsigned_field<std::uint32_t>(file, doc, "vocab", kMaxId + 1);
    // Recorded since partitions could be read one shard per process; older ones lack it.
    if (doc.contains("doc_id_limit")) m.doc_id_limit = unsigned_field<std::uint64_t>(file, doc, "doc_id_limit", UINT64_MAX);
  } else if (is_rows(m.kind)) {
    m.features = unsigned_field<std::uint32_t>(file, doc, "features", kMaxId + 1);
  } else {
    m.users = unsigned_field<std::uint32_t>(file, doc, "users", kMaxId + 1);
    m.items = unsigned_field<std::uint32_t>(file, doc, "items", kMaxId + 1);
    // Recorded since a process could read one shard alone; older partitions hold original ids.
    if (doc.contains("ids")) {
      if (doc["ids"] != "dense") throw InputError(file, 0, "\"ids\": \"dense\"", json_excerpt(doc["ids"]));
      m.dense_ids = true;
    }
  }
  m.records = unsigned_field<std::uint64_t>(file, doc, records, UINT64_MAX);
  m.balance = field<double>(file, doc, "balance", "a number");
  const auto parts = unsigned_field<std::uint64_t>(file, doc, "parts", UINT32_MAX);
  const auto shards = doc.find("shards");
  if (shards == doc.end() || !shards->is_array() || shards->size() != parts)
    throw InputError(file, 0, "\"shards\" as an array of " + std::to_string(parts) + " entries (\"parts\")",
                     shards == doc.end() ? "none" : std::to_string(shards->size()) + " entries");

  std::uint64_t total = 0, tokens = 0;
  for (const json& s : *shards) {
    if (!s.is_object()) throw InputError(file, 0, "shard entries as JSON objects", json_excerpt(s));
    ShardEntry e;
    e.file = field<std::string>(file, s, "file", "a string");
    // Entries are plain names in the directory; anything else could point outside it.
    if (e.file.empty() || e.file.find('/') != std::string::npos || e.file == "." || e.file == "..")
      throw InputError(file, 0, "a shard file name without directories", e.file);
    e.records = unsigned_field<std::uint64_t>(file, s, records, UINT64_MAX);
    if (tokens_name) e.tokens = unsigned_field<std::uint64_t>(file, s, tokens_name, UINT64_MAX);
    e.checksum = unsigned_field<std::uint32_t>(file, s, "checksum", UINT32_MAX);
    if (m.dense_ids) {
      e.sum = field<double>(file, s, "sum", "a number");
      e.sum_squares = field<double>(file, s, "sum_squares", "a number");
    }
    total += e.records;
    tokens += e.tokens;
    m.shards.push_back(std::move(e));
  }
  if (total != m.records)
    throw InputError(file, 0, std::string("\"") + records + "\" equal to the sum over shards, " + std::to_string(total),
                     std::to_string(m.records));
  if (tokens != m.tokens)
    throw InputError(file, 0, std::string("\"") + tokens_name + "\" equal to the sum over shards, " + std::to_string(tokens),
                     std::to_string(m.tokens));
  return m;
}

Manifest read_manifest(const std::filesystem::path& dir, std::string_view kind) {
  Manifest m = read_manifest(dir);
  if (m.kind != kind)
    throw InputError(dir / kManifestName, 0, "\"kind\": \"" + std::string(kind) + "\"", m.kind);
  return m;
}

const ShardEntry& listed_part(const std::filesystem::path& dir, const Manifest& manifest, std::uint32_t part) {
  if (part >= manifest.shards.size())
    throw InputError(dir / kManifestName, 0, "a part in [0, " + std::to_string(manifest.shards.size()) + ")",
                     std::to_string(part));
  return manifest.shards[part];
}

std::filesystem::path listed_shard(const std::filesystem::path& dir, const ShardEntry& entry) {
  const std::filesystem::path file = dir / entry.file;
  std::error_code ec;
  if (!std::filesystem::exists(file, ec)) throw InputError(file, 0, "the shard file " + kListed, "no such file");
  return file;
}

void check_listed(const std::filesystem::path& file, const ShardEntry& listed, const ShardEntry& loaded,
                  std::string_view records, std::string_view tokens) {
  if (loaded.records != listed.records)
    throw InputError(file, 0, std::to_string(listed.records) + " " + std::string(records) + " " + kListed,
                     std::to_string(loaded.records));
  if (loaded.tokens != listed.tokens)
    throw InputError(file, 0, std::to_string(listed.tokens) + " " + std::string(tokens) + " " + kListed,
                     std::to_string(loaded.tokens));
  if (loaded.checksum != listed.checksum)
    throw InputError(file, 0, "checksum " + std::to_string(listed.checksum) + " " + kListed,
                     std::to_string(loaded.checksum));
}

}  // namespace gyre::data
