// tests/lib/data/parallel_lines_test.cpp — the ratings readers on T threads give what they give on one: records, order, first error and its line.
#include <doctest/doctest.h>

#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "gyre/data/parallel_lines.hpp"
#include "gyre/data/ratings.hpp"
#include "support/input_errors.hpp"
#include "support/temp_dir.hpp"

using gyre::data::line_aligned_splits;
using gyre::data::RatingsSet;
using gyre::data::read_ratings;
using gyre::test::catch_input_error;
using gyre::test::TempDir;
using gyre::test::write_text;

namespace {

constexpr std::size_t kThreadCounts[] = {1, 2, 3, 7};

// Ratings lines with what the readers must skip or strip mixed in: comment lines (`comment` is
// '#' for triples, '%' for MatrixMarket), blank lines, CRLF endings, blanks, tabs and commas, and
// one comment long enough that 7 chunks of a small file leave some of them empty.
std::vector<std::string> lines_with_noise(std::size_t ratings, char comment, std::uint32_t base, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<std::string> lines;
  for (std::size_t k = 0; k < ratings; ++k) {
    switch (rng() % 8) {
      case 0: lines.push_back(std::string(1, comment) + " a comment line"); break;
      case 1: lines.push_back(""); break;
      case 2: lines.push_back(" \t "); break;
      default: break;
    }
    // A long comment line (built by append: GCC 12 misreports string + string here, bug 105651).
    if (k == ratings / 2) lines.push_back(std::string(1, comment).append(4000, 'x'));
    const std::string user = std::to_string(base + rng() % 50), item = std::to_string(base + rng() % 30);
    const std::string value = std::to_string(rng() % 9) + "." + std::to_string(rng() % 100);
    const char* separators[] = {" ", "\t", ",", " , "};
    const std::string sep = separators[rng() % 4];
    std::string line = user + sep + item + sep + value;
    if (rng() % 3 == 0) line += "\r";
    lines.push_back(line);
  }
  return lines;
}

std::string join(const std::vector<std::string>& lines, const std::string& head = {}) {
  std::string text = head;
  for (const auto& l : lines) text += l + "\n";
  return text;
}

void check_same(const RatingsSet& got, const RatingsSet& want) {
  CHECK(got.users == want.users);
  CHECK(got.items == want.items);
  REQUIRE(got.ratings.size() == want.ratings.size());
  for (std::size_t k = 0; k < want.ratings.size(); ++k) {
    INFO("rating " << k);
    CHECK(got.ratings[k].user == want.ratings[k].user);
    CHECK(got.ratings[k].item == want.ratings[k].item);
    CHECK(got.ratings[k].value == want.ratings[k].value);
  }
}

// Some chunk boundary of `parts` equal shares falls inside a line, so alignment is exercised.
bool a_share_lands_mid_line(std::string_view text, std::size_t parts) {
  for (std::size_t c = 1; c < parts; ++c) {
    const std::size_t share = text.size() * c / parts;
    if (share > 0 && text[share - 1] != '\n') return true;
  }
  return false;
}

// Reading `text` on every thread count fails as on one thread: same line, same message.
void check_error_everywhere(const TempDir& dir, const std::string& name, const std::string& text,
                            std::size_t line) {
  write_text(dir / name, text);
  const auto serial = catch_input_error([&] { read_ratings(dir / name, 1); });
  REQUIRE(serial.thrown);
  CHECK(serial.line == line);
  for (const std::size_t t : kThreadCounts) {
    INFO("threads " << t << ": " << serial.message);
    const auto parallel = catch_input_error([&] { read_ratings(dir / name, t); });
    REQUIRE(parallel.thrown);
    CHECK(parallel.line == line);
    CHECK(parallel.message == serial.message);
  }
}

}  // namespace

TEST_CASE("line_aligned_splits: chunks tile the text and begin at line starts") {
  const std::string text = "ab\ncdefgh\n\nij\r\nklmnopqrstuvwxyz\nlast";
  for (std::size_t parts = 1; parts <= 12; ++parts) {
    const auto splits = line_aligned_splits(text, parts);
    REQUIRE(splits.size() == parts + 1);
    CHECK(splits.front() == 0);
    CHECK(splits.back() == text.size());
    for (std::size_t c = 1; c < parts; ++c) {
      CHECK(splits[c] >= splits[c - 1]);
      CHECK((splits[c] == text.size() || splits[c] == 0 || text[splits[c] - 1] == '\n'));
    }
  }
  CHECK(line_aligned_splits("", 3) == std::vector<std::size_t>{0, 0, 0, 0});
}

TEST_CASE("ratings on T threads: triples come back as on one thread") {
  TempDir dir;
  const std::string text = join(lines_with_noise(300, '#', 0, 17));
  write_text(dir / "r.tsv", "\xEF\xBB\xBF" + text);  // a byte-order mark, which slurp drops
  REQUIRE(a_share_lands_mid_line(text, 7));
  const RatingsSet serial = read_ratings(dir / "r.tsv", 1);
  CHECK(serial.ratings.size() == 300);
  for (const std::size_t t : kThreadCounts) {
    INFO("threads " << t);
    check_same(read_ratings(dir / "r.tsv", t), serial);
  }
}

TEST_CASE("ratings on T threads: MatrixMarket comes back as on one thread") {
  TempDir dir;
  const std::string head = "%%MatrixMarket matrix coordinate real general\r\n% made for a test\n\n50 30 200\r\n";
  const std::string text = head + join(lines_with_noise(200, '%', 1, 5));
  write_text(dir / "m.mtx", text);
  REQUIRE(a_share_lands_mid_line(text, 3));
  const RatingsSet serial = read_ratings(dir / "m.mtx", 1);
  CHECK(serial.ratings.size() == 200);
  for (const std::size_t t : kThreadCounts) {
    INFO("threads " << t);
    check_same(read_ratings(dir / "m.mtx", t), serial);
  }
}

TEST_CASE("ratings on T threads: a bad line in the last chunk is named by its line in the file") {
  TempDir dir;
  const auto lines = lines_with_noise(200, '#', 0, 3);
  auto next_to_last = lines;
  next_to_last.insert(next_to_last.end() - 1, "7 8 not-a-number");
  check_error_everywhere(dir, "r.tsv", join(next_to_last), next_to_last.size() - 1);
  auto last = lines;
  last.back() = "1 2";
  const std::string text = join(last);
  check_error_everywhere(dir, "r.tsv", text.substr(0, text.size() - 1), last.size());  // no final newline
}

TEST_CASE("ratings on T threads: the first bad line in the file wins") {
  TempDir dir;
  auto lines = lines_with_noise(200, '#', 0, 9);
  lines[10] = "-1 2 3";
  lines[lines.size() - 3] = "1 2 3 4";
  check_error_everywhere(dir, "r.tsv", join(lines), 11);
}

TEST_CASE("ratings on T threads: MatrixMarket's declared count, exceeded or not reached") {
  TempDir dir;
  const std::string head = "%%MatrixMarket matrix coordinate real general\n% c\n50 30 ";
  const auto lines = lines_with_noise(200, '%', 1, 11);
  // The 181st entry is one too many, early in the last third; a bad line after it must not win.
  auto with_bad_tail = lines;
  with_bad_tail[with_bad_tail.size() - 2] = "1 99 1";
  std::size_t entries = 0, line_181 = 0;
  for (std::size_t k = 0; k < lines.size() && line_181 == 0; ++k) {
    const auto& l = lines[k];
    if (l.find_first_not_of(" \t\r") == std::string::npos || l.front() == '%') continue;
    if (++entries == 181) line_181 = k + 4;  // after the banner, the comment and the size line
  }
  check_error_everywhere(dir, "m.mtx", join(with_bad_tail, head + "180\n"), line_181);
  check_error_everywhere(dir, "m.mtx", join(lines, head + "201\n"), 3);
}
