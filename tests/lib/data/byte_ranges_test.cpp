// tests/lib/data/byte_ranges_test.cpp — byte-range splits: every line read by exactly one part, the parts' bytes summing to the input's size.
#include <doctest/doctest.h>

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "gyre/base/input_error.hpp"
#include "gyre/data/byte_ranges.hpp"
#include "gyre/data/ratings.hpp"
#include "support/temp_dir.hpp"

using namespace gyre;
using gyre::test::TempDir;
using gyre::test::write_text;

namespace {

// The lines of `text` as a reader must see them: split at '\n', one "\r" before it dropped, no
// line after a final '\n'.
std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::size_t at = 0;
  while (at < text.size()) {
    std::size_t end = text.find('\n', at);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(at, end - at);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    out.push_back(line);
    at = end + 1;
  }
  return out;
}

// Reads `input` in `parts` parts; checks the bytes sum to `size` and returns every line read, in
// part order.
std::vector<std::string> read_all(const std::filesystem::path& input, int parts, std::uint64_t size) {
  const auto files = data::list_input_files(input);
  std::vector<std::string> lines;
  std::uint64_t bytes = 0, count = 0;
  for (int p = 0; p < parts; ++p) {
    const auto stats = data::read_split(files, p, parts, [&](std::string_view l) { lines.emplace_back(l); });
    bytes += stats.bytes;
    count += stats.lines;
  }
  CHECK(bytes == size);
  CHECK(count == lines.size());
  return lines;
}

}  // namespace

TEST_CASE("split_range tiles the bytes, without overflow") {
  for (const std::uint64_t total : {0ull, 1ull, 7ull, 100ull, ~0ull}) {
    for (int parts = 1; parts <= 9; ++parts) {
      std::uint64_t at = 0;
      for (int p = 0; p < parts; ++p) {
        const auto r = data::split_range(total, p, parts);
        CHECK(r.begin == at);
        CHECK(r.end >= r.begin);
        at = r.end;
      }
      CHECK(at == total);
    }
  }
  CHECK_THROWS_AS(data::split_range(10, 3, 3), std::invalid_argument);
}

TEST_CASE("each line is read by exactly one part, whatever the split") {
  const std::string long_line(300, 'x');
  const std::vector<std::pair<const char*, std::string>> cases{
      {"a trailing newline", "alpha\nbeta\ngamma\n"},
      {"no trailing newline", "alpha\nbeta\ngamma"},
      {"CRLF line ends", "alpha\r\nbeta\r\n\r\ngamma\r\n"},
      {"a line longer than a split", "a\n" + long_line + "\nb\nc\n" + long_line},
      {"empty lines", "\n\n\nx\n\n"},
      {"one byte", "q"},
      {"one newline", "\n"},
      {"an empty file", ""},
  };
  for (const auto& c : cases) {
    const auto& what = c.first;
    const auto& text = c.second;
    CAPTURE(what);
    TempDir dir;
    write_text(dir / "in.txt", text);
    for (const int parts : {1, 2, 3, 4, 7, 16, 64, 500}) {  // up to more parts than lines, or bytes
      CAPTURE(parts);
      CHECK(read_all(dir / "in.txt", parts, text.size()) == lines_of(text));
    }
  }
}

TEST_CASE("read_split_text and read_split_blocks: the parts' texts laid end to end are the file, each part's its own lines") {
  const std::string long_line(300, 'x');
  for (const std::string& text : {std::string("alpha\nbeta\ngamma\n"), std::string("alpha\nbeta\ngamma"),
                                   "a\n" + long_line + "\nb\nc\n" + long_line, std::string("\n\n\nx\n\n"),
                                   std::string("q"), std::string("")}) {
    CAPTURE(text);
    TempDir dir;
    write_text(dir / "in.txt", text);
    for (const int parts : {1, 2, 3, 7, 64}) {
      CAPTURE(parts);
      std::string joined;
      std::uint64_t lines = 0;
      for (int p = 0; p < parts; ++p) {
        data::SplitStats stats;
        const auto range = data::split_range(text.size(), p, parts);
        const std::string part = data::read_split_text(dir / "in.txt", range, stats);
        CHECK(stats.bytes == part.size());
        CHECK(lines_of(part).size() == stats.lines);
        for (const std::uint64_t block : {1u, 4u, 17u, 1000u}) {  // blocks of whole lines, the same lines
          CAPTURE(block);
          std::string blocks;
          const auto counted = data::read_split_blocks(dir / "in.txt", range, block, [&](std::string_view b) {
            if (b.back() != '\n') CHECK(std::string_view(text).ends_with(b));  // only the file's last line lacks one
            blocks += b;
          });
          CHECK(blocks == part);
          CHECK(counted.lines == stats.lines);
        }
        joined += part;
        lines += stats.lines;
      }
      CHECK(joined == text);
      CHECK(lines == lines_of(text).size());
    }
  }
}

TEST_CASE("a directory's files are read in name order, each line once, a file's last line never joined to the next") {
  TempDir dir;
  std::filesystem::create_directory(dir / "in");
  write_text(dir / "in/b.txt", "two\nthree");  // no final newline: "three" stays a line of its own
  write_text(dir / "in/a.txt", "one\n");
  write_text(dir / "in/c.txt", "");
  write_text(dir / "in/d.txt", "four\r\nfive\n");
  write_text(dir / "in/.hidden", "not read\n");
  std::filesystem::create_directory(dir / "in/sub");
  write_text(dir / "in/sub/e.txt", "not read either\n");
  const std::vector<std::string> want{"one", "two", "three", "four", "five"};
  const std::uint64_t size = 4 + 9 + 0 + 11;
  for (const int parts : {1, 2, 3, 5, 8, 30}) {
    CAPTURE(parts);
    CHECK(read_all(dir / "in", parts, size) == want);
  }
}

TEST_CASE("a part reads only its own range: its bytes are its lines'") {
  TempDir dir;
  std::string text;
  for (int i = 0; i < 1000; ++i) text += "line " + std::to_string(i) + "\n";
  write_text(dir / "in.txt", text);
  const auto files = data::list_input_files(dir / "in.txt");
  for (int p = 0; p < 4; ++p) {
    std::uint64_t own = 0;
    const auto stats = data::read_split(files, p, 4, [&](std::string_view l) { own += l.size() + 1; });
    CHECK(stats.bytes == own);
    // The part's lines start in its range: it holds about a quarter of the bytes.
    CHECK(stats.bytes > text.size() / 4 - 20);
    CHECK(stats.bytes < text.size() / 4 + 20);
  }
}

TEST_CASE("a missing input, an unlistable directory or a device is an InputError naming the path") {
  TempDir dir;
  auto error_of = [](const std::filesystem::path& p) -> std::string {
    try {
      data::list_input_files(p);
    } catch (const InputError& e) {
      return e.what();
    }
    return "(no error)";
  };
  CHECK(error_of(dir / "nope.txt").find("nope.txt") != std::string::npos);
  CHECK(error_of("/dev/null").find("a regular file or a directory") != std::string::npos);
  std::filesystem::create_directory(dir / "locked");
  std::filesystem::permissions(dir / "locked", std::filesystem::perms::none);
  std::error_code ec;
  std::filesystem::directory_iterator probe(dir / "locked", ec);
  if (ec) CHECK(error_of(dir / "locked").find("a readable directory") != std::string::npos);  // root reads it anyway
  std::filesystem::permissions(dir / "locked", std::filesystem::perms::owner_all);
}

TEST_CASE("a byte-order mark starting the file is not data, but its bytes are the first part's") {
  TempDir dir;
  write_text(dir / "in.txt", "\xEF\xBB\xBF" "first\nsecond\n");
  std::string seen;
  const auto stats = data::read_split_blocks(dir / "in.txt", {0, 17}, 4, [&](std::string_view b) { seen += b; });
  CHECK(seen == "first\nsecond\n");
  CHECK(stats.bytes == 16);
  CHECK(stats.lines == 2);
  // A MatrixMarket header after a mark: its body starts at a file offset, mark included.
  const std::string mm_header = "%%MatrixMarket matrix coordinate real general\n2 2 1\n";
  write_text(dir / "r.mtx", "\xEF\xBB\xBF" + mm_header + "1 2 3.5\n");
  const auto header = data::read_ratings_header(dir / "r.mtx");
  CHECK(header.matrix_market);
  CHECK(header.body_begin == 3 + mm_header.size());
  // Triples start at byte 0, which the range reader's own mark rule covers.
  write_text(dir / "r.tsv", "\xEF\xBB\xBF" "1 2 3.5\n");
  CHECK(data::read_ratings_header(dir / "r.tsv").body_begin == 0);
}
