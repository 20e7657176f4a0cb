// apps/common/model_header.cpp — parsing model.json and its numeric fields.
#include "app/model_header.hpp"

#include <cmath>

#include "gyre/base/json_input.hpp"
#include "gyre/data/text_input.hpp"

namespace gyre::app {

void require_model_directory(const std::filesystem::path& dir, const std::string& expected) {
  std::error_code ec;
  const auto st = std::filesystem::status(dir, ec);
  if (std::filesystem::is_directory(st)) return;
  throw InputError(dir, 0, expected,
                   ec == std::errc::too_many_symbolic_link_levels ? "a loop of symbolic links"
                   : std::filesystem::exists(st)                  ? "not a directory"
                                                                  : "no such directory");
}

nlohmann::json read_model_header(const std::filesystem::path& file, const std::string& format,
                                 const std::string& writer) {
  nlohmann::json header = parse_json(data::slurp(file), file, "a JSON object written by " + writer);
  const auto at = header.is_object() ? header.find("format") : header.end();
  if (!header.is_object() || at == header.end() || *at != format)
    throw InputError(file, 0, "a JSON object with \"format\": \"" + format + "\"",
                     !header.is_object() ? json_excerpt(header)
                     : at == header.end() ? std::string("no \"format\"")
                                          : "\"format\": " + json_excerpt(*at));
  return header;
}

nlohmann::json number_or_null(double x) { return std::isnan(x) ? nlohmann::json(nullptr) : nlohmann::json(x); }

float header_float(const nlohmann::json& header, const std::filesystem::path& file, const char* key) {
  const double v =
      header_field(header, file, key, "a finite number", [](const nlohmann::json& j) { return j.is_number(); })
          .get<double>();
  if (!std::isfinite(static_cast<float>(v)))
    throw InputError(file, 0, std::string("\"") + key + "\": a finite number", std::to_string(v));
  return static_cast<float>(v);
}

std::uint64_t header_count(const nlohmann::json& header, const std::filesystem::path& file, const char* key,
                           std::uint64_t lowest, std::uint64_t highest) {
  const auto n = header_field(header, file, key, "a non-negative integer",
                              [](const nlohmann::json& j) { return j.is_number_unsigned(); })
                     .get<std::uint64_t>();
  if (n < lowest || n > highest)
    throw InputError(file, 0,
                     std::string("\"") + key + "\" in " + std::to_string(lowest) + ".." + std::to_string(highest),
                     std::to_string(n));
  return n;
}

}  // namespace gyre::app
