// apps/common/app/part_files.hpp — a model written in parts: each text file sealed by its size and checksum in the manifest, and checked against it when read.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <string_view>

namespace gyre::app {

// What a manifest records of a file: its name in the model directory, its length and crc32c.
struct FileSeal {
  std::string name;
  std::uint64_t bytes = 0;
  std::uint32_t crc32c = 0;
  nlohmann::json to_json() const;
};

// A part's text file, counted as it is written (gyre::OutputFile underneath: nothing appears
// under the name until commit()).
class SealedOutput {
 public:
  SealedOutput(const std::filesystem::path& directory, std::string name);
  ~SealedOutput();
  void write(std::string_view text);
  FileSeal commit();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// The name of part `part`'s file `stem`.tsv: "user_factors.part-00002.tsv".
std::string part_file_name(std::string_view stem, int part);
// Whether `name` is a part file of one of `stems` (for DirectoryKind::owns).
bool is_part_file_name(std::string_view name, std::span<const std::string_view> stems);

// The file `seal` (an entry of `manifest`'s "parts") names in `directory`, after checking, by
// streaming it through a small buffer, that it is the one written for this model. Throws
// gyre::InputError naming the file: a missing part, a torn one (fewer or more bytes than
// recorded: a write cut short, or a copy that stopped), a foreign one (the size matches but the
// checksum does not: a part of another model).
std::filesystem::path check_sealed_file(const std::filesystem::path& directory, const std::filesystem::path& manifest,
                                        const nlohmann::json& seal);
// The same file's text, checked as above.
std::string read_sealed_text(const std::filesystem::path& directory, const std::filesystem::path& manifest,
                             const nlohmann::json& seal);

}  // namespace gyre::app
