// apps/common/part_files.cpp — sealed text parts: written counted, read checked against the manifest.
#include "app/part_files.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <vector>

#include "gyre/base/crc32c.hpp"
#include "gyre/base/input_error.hpp"
#include "gyre/base/json_input.hpp"
#include "gyre/base/output_file.hpp"
#include "gyre/data/text_input.hpp"

namespace gyre::app {

nlohmann::json FileSeal::to_json() const { return {{"file", name}, {"bytes", bytes}, {"crc32c", crc32c}}; }

struct SealedOutput::Impl {
  OutputFile file;
  FileSeal seal;
};

SealedOutput::SealedOutput(const std::filesystem::path& directory, std::string name)
    : impl_(new Impl{OutputFile(directory / name), FileSeal{std::move(name)}}) {}

SealedOutput::~SealedOutput() = default;

void SealedOutput::write(std::string_view text) {
  impl_->seal.bytes += text.size();
  impl_->seal.crc32c = crc32c(text.data(), text.size(), impl_->seal.crc32c);
  impl_->file.stream() << text;
}

FileSeal SealedOutput::commit() {
  impl_->file.commit();
  return impl_->seal;
}

std::string part_file_name(std::string_view stem, int part) {
  char number[16];
  std::snprintf(number, sizeof number, "%05d", part);
  return std::string(stem) + ".part-" + number + ".tsv";
}

bool is_part_file_name(std::string_view name, std::span<const std::string_view> stems) {
  for (const std::string_view stem : stems) {
    const std::string_view rest = name.substr(0, stem.size()) == stem ? name.substr(stem.size()) : std::string_view{};
    // ".part-" five or more digits ".tsv"
    if (rest.size() < 15 || rest.substr(0, 6) != ".part-" || rest.substr(rest.size() - 4) != ".tsv") continue;
    const std::string_view digits = rest.substr(6, rest.size() - 10);
    if (digits.find_first_not_of("0123456789") == std::string_view::npos) return true;
  }
  return false;
}

std::filesystem::path check_sealed_file(const std::filesystem::path& directory, const std::filesystem::path& manifest,
                                        const nlohmann::json& seal) {
  const std::string expected = "a part file entry {\"file\": name, \"bytes\": n, \"crc32c\": c}";
  if (!seal.is_object() || !seal.contains("file") || !seal["file"].is_string() || !seal.contains("bytes") ||
      !seal["bytes"].is_number_unsigned() || !seal.contains("crc32c") || !seal["crc32c"].is_number_unsigned() ||
      seal["crc32c"].get<std::uint64_t>() > UINT32_MAX)
    throw InputError(manifest, 0, expected, json_excerpt(seal));
  const auto name = seal["file"].get<std::string>();
  // A part lies beside its manifest: a name with a directory in it is not one gyre wrote.
  if (name.empty() || name.find('/') != std::string::npos || name[0] == '.')
    throw InputError(manifest, 0, "a part file name without a directory", name);
  const std::filesystem::path file = directory / name;
  const auto bytes = seal["bytes"].get<std::uint64_t>();
  const auto recorded = seal["crc32c"].get<std::uint32_t>();
  std::error_code ec;
  const auto size = std::filesystem::file_size(file, ec);
  if (ec)
    throw InputError(file, 0, "the part file " + manifest.string() + " lists (a missing part: the model is incomplete)",
                     ec.message());
  const auto torn = [&](std::uint64_t found) {
    return InputError(file, 0,
                      std::to_string(bytes) + " bytes, as " + manifest.string() +
                          " records (a torn part: a write or a copy cut short, or a part of another model)",
                      std::to_string(found) + " bytes");
  };
  if (size != bytes) throw torn(size);
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> in(std::fopen(file.c_str(), "rb"), &std::fclose);
  if (!in) throw InputError(file, 0, "a readable part file", std::strerror(errno));
  std::vector<char> buffer(std::size_t{1} << 20);
  std::uint64_t read = 0;
  std::uint32_t crc = 0;
  for (std::size_t n; (n = std::fread(buffer.data(), 1, buffer.size(), in.get())) > 0; read += n)
    crc = crc32c(buffer.data(), n, crc);
  if (std::ferror(in.get())) throw InputError(file, 0, "a readable part file", std::strerror(errno));
  if (read != bytes) throw torn(read);
  if (crc != recorded)
    throw InputError(file, 0,
                     "the part " + manifest.string() + " records (crc32c " + std::to_string(recorded) +
                         "): this file is another one of the same size, a part of another model or a damaged copy",
                     "crc32c " + std::to_string(crc));
  return file;
}

std::string read_sealed_text(const std::filesystem::path& directory, const std::filesystem::path& manifest,
                             const nlohmann::json& seal) {
  // Checked first, then read: a file that changes in between is a race no reader can rule out.
  return data::slurp(check_sealed_file(directory, manifest, seal));
}

}  // namespace gyre::app
