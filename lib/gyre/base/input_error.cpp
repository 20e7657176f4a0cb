// gyre/base/input_error.cpp — formats "FILE:LINE: expected X, found 'Y'".
#include "gyre/base/input_error.hpp"

namespace gyre {
namespace {

std::string format(const std::filesystem::path& file, std::size_t line, const std::string& expected,
                   const std::string& found) {
  // append() rather than operator+ chains: GCC 12 at -O3 warns (-Wrestrict) on the latter.
  std::string msg = file.string();
  if (line > 0) msg.append(":").append(std::to_string(line));
  msg.append(": expected ").append(expected);
  if (!found.empty()) {
    // Long garbage lines would drown the message; the start is enough to find it.
    constexpr std::size_t kMaxShown = 60;
    msg.append(", found '").append(found.substr(0, kMaxShown)).append(found.size() > kMaxShown ? "...'" : "'");
  }
  return msg;
}

}  // namespace

InputError::InputError(std::filesystem::path file, std::size_t line, const std::string& expected,
                       const std::string& found)
    : std::runtime_error(format(file, line, expected, found)), file_(std::move(file)), line_(line) {}

}  // namespace gyre
