// gyre/base/input_error.hpp — the error for bad input: which file, which line, what was expected.
#pragma once

#include <cstddef>
#include <filesystem>
#include <stdexcept>
#include <string>

namespace gyre {

// Thrown by every reader and loader; entry points turn it into exit code 2. Line 0 means
// "the file as a whole" (missing, empty, manifest mismatch), so what() then omits it.
class InputError : public std::runtime_error {
 public:
  InputError(std::filesystem::path file, std::size_t line, const std::string& expected,
             const std::string& found = {});

  const std::filesystem::path& file() const noexcept { return file_; }
  std::size_t line() const noexcept { return line_; }

 private:
  std::filesystem::path file_;
  std::size_t line_;
};

// Exit code used by every gyre binary for bad input (usage errors use CLI11's codes).
inline constexpr int kExitBadInput = 2;

}  // namespace gyre
