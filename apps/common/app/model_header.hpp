// apps/common/app/model_header.hpp — an app's model.json read back: parsed, its "format" checked, each field of the kind and range written, or an error naming file and field.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <string>

#include "gyre/base/input_error.hpp"
#include "gyre/base/json_input.hpp"

namespace gyre::app {

// Throws InputError "DIR: expected `expected`, found …" unless `dir` is a directory (or a
// symlink to one): missing, not a directory, a loop of symbolic links.
void require_model_directory(const std::filesystem::path& dir, const std::string& expected);

// The JSON object in `file`, whose "format" must be `format` (e.g. "gyre-mf"); `writer` names
// what writes it in the error ("gyre-mf --out"). Throws gyre::InputError.
nlohmann::json read_model_header(const std::filesystem::path& file, const std::string& format,
                                 const std::string& writer);

// header[key] if ok(header[key]), else gyre::InputError "\"key\": expected" naming the file.
template <typename Ok>
const nlohmann::json& header_field(const nlohmann::json& header, const std::filesystem::path& file, const char* key,
                                   const std::string& expected, Ok ok) {
  const auto at = header.find(key);
  if (at == header.end() || !ok(*at))
    throw InputError(file, 0, std::string("\"") + key + "\": " + expected,
                     at == header.end() ? std::string("no such field") : json_excerpt(*at));
  return *at;
}

// A number that is finite as a float.
float header_float(const nlohmann::json& header, const std::filesystem::path& file, const char* key);
// `x` as a JSON number, or null when it is NaN (a figure not known yet).
nlohmann::json number_or_null(double x);
// A non-negative integer in lowest..highest.
std::uint64_t header_count(const nlohmann::json& header, const std::filesystem::path& file, const char* key,
                           std::uint64_t lowest, std::uint64_t highest);

}  // namespace gyre::app
