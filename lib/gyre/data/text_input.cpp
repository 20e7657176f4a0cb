// gyre/data/text_input.cpp — reading a whole input file with errors that name it.
#include "gyre/data/text_input.hpp"

#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <memory>
#include <system_error>

#include "gyre/base/input_error.hpp"

namespace gyre::data {

std::string slurp(const std::filesystem::path& file) {
  std::error_code ec;
  if (std::filesystem::is_directory(file, ec)) throw InputError(file, 0, "a readable file", "a directory");
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> in(std::fopen(file.c_str(), "rb"), &std::fclose);
  if (!in) throw InputError(file, 0, "a readable file", std::strerror(errno));
  std::string text;
  constexpr std::size_t kChunk = std::size_t{1} << 20;
  for (;;) {
    const std::size_t old = text.size();
    text.resize(old + kChunk);
    const std::size_t got = std::fread(text.data() + old, 1, kChunk, in.get());
    text.resize(old + got);
    if (got < kChunk) break;
  }
  if (std::ferror(in.get())) throw InputError(file, 0, "a readable file", std::strerror(errno));
  return text;
}

bool parse_decimal(std::string_view token, std::uint64_t& value, std::uint64_t max) {
  // from_chars would accept neither '+' nor '-', but checking the first byte keeps "-0" out too.
  if (token.empty() || token.front() < '0' || token.front() > '9') return false;
  const auto [end, ec] = std::from_chars(token.data(), token.data() + token.size(), value);
  return ec == std::errc() && end == token.data() + token.size() && value <= max;
}

}  // namespace gyre::data
