// tests/lib/data/line_reader_test.cpp — the streaming LineReader gives the lines and numbers LineCursor gives over slurp().
#include <doctest/doctest.h>

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "gyre/base/input_error.hpp"
#include "gyre/data/text_input.hpp"
#include "support/temp_dir.hpp"

using gyre::test::TempDir;
using gyre::test::write_text;

namespace {

using Lines = std::vector<std::pair<std::size_t, std::string>>;

Lines streamed(const std::filesystem::path& file) {
  gyre::data::LineReader reader(file);
  Lines out;
  std::string_view line;
  while (reader.next(line)) out.emplace_back(reader.number(), std::string(line));
  return out;
}

Lines whole(const std::filesystem::path& file) {
  const std::string text = gyre::data::slurp(file);
  gyre::data::LineCursor cursor(text);
  Lines out;
  std::string_view line;
  while (cursor.next(line)) out.emplace_back(cursor.number(), std::string(line));
  return out;
}

}  // namespace

TEST_CASE("LineReader streams the same lines as LineCursor over the whole file") {
  TempDir dir;
  std::string many;  // lines that straddle the 1 MiB buffer's refills
  for (int i = 0; i < 150000; ++i) many += std::to_string(i) + (i % 3 == 0 ? " a b c\r\n" : " x\n");
  const std::string longer(std::size_t{5} << 19, 'w');  // 2.5 MiB: the buffer must grow
  const std::pair<const char*, std::string> cases[] = {
      {"empty", ""},
      {"one line, no newline", "1 2 3"},
      {"trailing newline", "1 2 3\n4 5 6\n"},
      {"blank lines", "\n\n1\n\n"},
      {"crlf", "1 2\r\n3 4\r\n"},
      {"byte-order mark", "\xEF\xBB\xBF" "7 8 9\n1 1 1"},
      {"many", many},
      {"a line longer than the buffer", "first\n" + longer + "\nlast"},
  };
  for (const auto& c : cases) {
    const auto& name = c.first;
    const auto& text = c.second;
    CAPTURE(name);
    const auto file = dir / "input.txt";
    write_text(file, text);
    const Lines expected = whole(file);
    CHECK(streamed(file) == expected);
  }
}

TEST_CASE("LineReader refuses a missing file and a directory, naming them") {
  TempDir dir;
  CHECK_THROWS_AS(gyre::data::LineReader(dir / "missing.txt"), gyre::InputError);
  CHECK_THROWS_AS(gyre::data::LineReader(dir.path()), gyre::InputError);
}
