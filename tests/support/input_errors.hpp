// tests/support/input_errors.hpp — capture a gyre::InputError so tests can check what it says.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>

#include "gyre/base/input_error.hpp"

namespace gyre::test {

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

}  // namespace gyre::test
