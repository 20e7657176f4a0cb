// apps/common/model_header.cpp — parsing model.json and its numeric fields.
#include "app/model_header.hpp"

#include <cmath>

#include "gyre/data/text_input.hpp"

namespace gyre::app {

nlohmann::json read_model_header(const std::filesystem::path& file, const std::string& format,
                                 const std::string& writer) {
  nlohmann::json header;
  try {
    header = nlohmann::json::parse(data::slurp(file));
  } catch (const nlohmann::json::exception& e) {
    throw InputError(file, 0, "a JSON object written by " + writer, e.what());
  }
  if (!header.is_object() || header.value("format", "") != format)
    throw InputError(file, 0, "a JSON object with \"format\": \"" + format + "\"", header.dump().substr(0, 80));
  return header;
}

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
