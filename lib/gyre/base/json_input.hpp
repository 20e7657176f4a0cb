// gyre/base/json_input.hpp — JSON read from a file as untrusted input: bounded in depth, errors naming file and line, values shown in short.
#pragma once

#include <nlohmann/json_fwd.hpp>

#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>

namespace gyre {

// No file gyre writes nests deeper than a few levels; a deeper one is not ours, and the
// recursion a deep document costs (serialising it, walking it) must not reach the stack's end.
inline constexpr std::size_t kMaxJsonDepth = 64;

// The JSON document `text`, read from `file`. Throws InputError "FILE:LINE: expected
// `expected`, found …" for text that is not JSON or nests deeper than kMaxJsonDepth.
nlohmann::json parse_json(std::string_view text, const std::filesystem::path& file, const std::string& expected);

// `value` shown in an error message: a scalar as written (a long string cut), a container by
// its kind and size. Never the whole document, whatever its size.
std::string json_excerpt(const nlohmann::json& value);

}  // namespace gyre
