// tests/support/partition_manifest.hpp — edits a partition's manifest.json in place, as a careless user would.
#pragma once

#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>

#include "gyre/data/manifest.hpp"
#include "support/temp_dir.hpp"

namespace gyre::test {

// Reads dir/manifest.json, lets `edit` change it and writes it back.
inline void edit_manifest(const std::filesystem::path& dir, const std::function<void(nlohmann::json&)>& edit) {
  auto doc = nlohmann::json::parse(read_text(dir / data::kManifestName));
  edit(doc);
  write_text(dir / data::kManifestName, doc.dump());
}

inline void edit_manifest(const TempDir& dir, const std::function<void(nlohmann::json&)>& edit) {
  edit_manifest(dir.path(), edit);
}

}  // namespace gyre::test
