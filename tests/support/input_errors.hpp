// tests/support/input_errors.hpp — capture a gyre::InputError so tests can check what it says.
#pragma once

#include <doctest/doctest.h>

#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>

#include "gyre/base/input_error.hpp"

namespace gyre::test {

// `text` with `line` (and its '\n') inserted after its first `after` lines: a bad line at line
// after + 1 of a file.
inline std::string with_line_inserted(std::string text, std::size_t after, std::string_view line) {
  std::size_t at = 0;
  for (std::size_t n = 0; n < after; ++n) at = text.find('\n', at) + 1;
  text.insert(at, std::string(line) + "\n");
  return text;
}

struct CaughtInputError {
  bool thrown = false;
  std::string message;  // what()
  std::filesystem::path file;
  std::size_t line = 0;
};

// Runs f and returns the InputError it threw, if any; other exceptions propagate (and fail the
// test with their own message).
template <typename F>
CaughtInputError catch_input_error(F&& f) {
  CaughtInputError caught;
  try {
    f();
  } catch (const InputError& e) {
    caught = {true, e.what(), e.file(), e.line()};
  }
  return caught;
}

inline bool contains(std::string_view text, std::string_view part) { return text.find(part) != std::string_view::npos; }

// The message must start "FILE[:LINE]: expected " (LINE 0: none), name the expectation and, if
// given, what was found.
inline void check_input_error(const CaughtInputError& e, const std::filesystem::path& file, std::size_t line,
                              const std::string& expected, const std::string& found = {}) {
  INFO(e.message);
  REQUIRE(e.thrown);
  CHECK(e.file == file);
  CHECK(e.line == line);
  const std::string prefix = file.string() + (line > 0 ? ":" + std::to_string(line) : "") + ": expected ";
  CHECK(e.message.rfind(prefix, 0) == 0);
  CHECK(contains(e.message, expected));
  if (!found.empty()) CHECK(contains(e.message, "found '" + found + "'"));
}

}  // namespace gyre::test
