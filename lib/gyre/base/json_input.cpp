// gyre/base/json_input.cpp — depth checked before parsing, byte offsets turned into lines.
#include "gyre/base/json_input.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>

#include "gyre/base/input_error.hpp"

namespace gyre {
namespace {

std::size_t line_at(std::string_view text, std::size_t offset) {
  offset = std::min(offset, text.size());
  return static_cast<std::size_t>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(offset), '\n')) + 1;
}

// The offset of the first bracket that opens level kMaxJsonDepth + 1, or npos. Brackets inside
// strings do not count; the parser judges everything else.
std::size_t too_deep_at(std::string_view text) {
  std::size_t depth = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') ++i;
      else if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > kMaxJsonDepth) return i;
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return std::string_view::npos;
}

}  // namespace

nlohmann::json parse_json(std::string_view text, const std::filesystem::path& file, const std::string& expected) {
  if (const std::size_t at = too_deep_at(text); at != std::string_view::npos)
    throw InputError(file, line_at(text, at), expected,
                     "JSON nested more than " + std::to_string(kMaxJsonDepth) + " levels deep");
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    // The parser reports a byte offset; a line number is what a person can act on.
    throw InputError(file, line_at(text, e.byte == 0 ? 0 : e.byte - 1), expected,
                     text.empty() ? "an empty file" : e.what());
  }
}

std::string json_excerpt(const nlohmann::json& value) {
  constexpr std::size_t kMaxString = 60;
  switch (value.type()) {
    case nlohmann::json::value_t::object:
      return "an object of " + std::to_string(value.size()) + (value.size() == 1 ? " field" : " fields");
    case nlohmann::json::value_t::array:
      return "an array of " + std::to_string(value.size()) + (value.size() == 1 ? " element" : " elements");
    case nlohmann::json::value_t::binary: return "binary data";
    case nlohmann::json::value_t::string: {
      const auto& s = value.get_ref<const std::string&>();
      if (s.size() <= kMaxString) return value.dump();
      // The cut may split a character: shown replaced rather than refused by dump().
      return nlohmann::json(s.substr(0, kMaxString)).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) +
             " (cut from " + std::to_string(s.size()) + " bytes)";
    }
    default: return value.dump();  // a number, a boolean or null: short
  }
}

}  // namespace gyre
