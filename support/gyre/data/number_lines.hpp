// gyre/data/number_lines.hpp — the small text files of a partition directory: one line per id, a few non-negative integers on each (internal to lib/, not installed).
#pragma once

#include <array>
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

#include "gyre/base/input_error.hpp"
#include "gyre/base/output_file.hpp"
#include "gyre/data/text_input.hpp"

namespace gyre::data {

// Writes `n` lines atomically, line i from write_line(i, buffer) (which appends it without its
// '\n'), in 1 MiB writes.
template <typename Write>
void write_lines(const std::filesystem::path& file, std::size_t n, Write&& write_line) {
  OutputFile out(file);
  std::string buffer;
  for (std::size_t i = 0; i < n; ++i) {
    write_line(i, buffer);
    buffer.push_back('\n');
    if (buffer.size() >= (std::size_t{1} << 20)) {
      out.stream().write(buffer.data(), static_cast<std::streamsize>(buffer.size()));
      buffer.clear();
    }
  }
  out.stream().write(buffer.data(), static_cast<std::streamsize>(buffer.size()));
  out.commit();
}

inline void append_number(std::string& buffer, std::uint64_t value) {
  char field[24];
  const auto [end, ec] = std::to_chars(field, field + sizeof field, value);
  buffer.append(field, end);
}

// Reads a file of exactly `lines` lines, each N non-negative integers separated by blanks, and
// hands on_line(index, values, line_number) each line's numbers. `what` says what a line holds
// (for messages, e.g. "a token count (a non-negative integer)") and `listed` follows the expected
// line count in them (e.g. ", one per word, as listed in manifest.json").
// Throws gyre::InputError naming the file and line for a malformed line, too many lines or too
// few (line 0), and whatever on_line throws.
template <std::size_t N, typename OnLine>
void read_number_lines(const std::filesystem::path& file, std::size_t lines, std::string_view what,
                       std::string_view listed, OnLine&& on_line) {
  const std::string text = slurp(file);
  LineCursor cursor(text);
  std::string_view line;
  std::size_t seen = 0;
  const auto expected_lines = [&] { return std::to_string(lines) + " lines" + std::string(listed); };
  while (cursor.next(line)) {
    if (seen == lines) throw InputError(file, cursor.number(), expected_lines(), std::string(line));
    std::array<std::string_view, N + 1> fields;
    std::array<std::uint64_t, N> values{};
    bool ok = split_blanks(line, fields.data(), N + 1) == N;
    for (std::size_t i = 0; ok && i < N; ++i) ok = parse_decimal(fields[i], values[i]);
    if (!ok) throw InputError(file, cursor.number(), std::string(what), std::string(line));
    on_line(seen, values, cursor.number());
    ++seen;
  }
  if (seen != lines) throw InputError(file, 0, expected_lines(), std::to_string(seen) + " lines");
}

}  // namespace gyre::data
