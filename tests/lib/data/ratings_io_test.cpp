// tests/lib/data/ratings_io_test.cpp — ratings readers: accepted formats and every bad-input message.
#include <doctest/doctest.h>

#include <cmath>
#include <string>

#include "gyre/data/ratings.hpp"
#include "support/fifo_input.hpp"
#include "support/input_errors.hpp"
#include "support/temp_dir.hpp"

using gyre::data::read_ratings;
using gyre::test::catch_input_error;
using gyre::test::contains;
using gyre::test::TempDir;
using gyre::test::write_text;

namespace {

// Writes `text` to a file in `dir` and returns the error reading it raises.
gyre::test::CaughtInputError read_error(const TempDir& dir, const std::string& text,
                                        const std::string& name = "r.tsv") {
  write_text(dir / name, text);
  return catch_input_error([&] { read_ratings(dir / name); });
}

// The message must name the file, the line (0: none) and the expectation; found is optional.
void check_message(const gyre::test::CaughtInputError& e, const TempDir& dir, std::size_t line,
                   const std::string& expected, const std::string& found = {}, const std::string& name = "r.tsv") {
  INFO(e.message);
  REQUIRE(e.thrown);
  CHECK(e.line == line);
  CHECK(e.file == dir / name);
  const std::string prefix = (dir / name).string() + (line > 0 ? ":" + std::to_string(line) : "") + ": expected ";
  CHECK(e.message.rfind(prefix, 0) == 0);
  CHECK(contains(e.message, expected));
  if (!found.empty()) CHECK(contains(e.message, "found '" + found + "'"));
}

}  // namespace

TEST_CASE("ratings: triples with comments, blank lines, commas and tabs parse") {
  TempDir dir;
  write_text(dir / "r.txt",
             "# user item rating\n"
             "0 1 4.5\n"
             "\n"
             "2,3,-1   # trailing comment\n"
             "  4\t0\t2e-1\r\n"
             "1 , 2 , 3\n"
             "   \t \n");
  const auto set = read_ratings(dir / "r.txt");
  REQUIRE(set.ratings.size() == 4);
  CHECK(set.users == 5);
  CHECK(set.items == 4);
  CHECK(set.ratings[0].user == 0);
  CHECK(set.ratings[0].item == 1);
  CHECK(set.ratings[0].value == 4.5f);
  CHECK(set.ratings[1].user == 2);
  CHECK(set.ratings[1].value == -1.0f);
  CHECK(set.ratings[2].user == 4);
  CHECK(set.ratings[2].value == 0.2f);
  CHECK(set.ratings[3].item == 2);
}

TEST_CASE("ratings: malformed line names file, line and the expected fields") {
  TempDir dir;
  check_message(read_error(dir, "0 1 2\n# ok\n1 2\n"), dir, 3, "3 fields \"user item rating\"", "1 2");
  check_message(read_error(dir, "0 1 2 3\n"), dir, 1, "3 fields", "0 1 2 3");
  check_message(read_error(dir, "0,,1,2\n"), dir, 1, "3 fields");
  check_message(read_error(dir, "0,1,2,\n"), dir, 1, "3 fields");
}

TEST_CASE("ratings: negative id") {
  TempDir dir;
  check_message(read_error(dir, "0 0 1\n-3 1 2\n"), dir, 2, "a non-negative user id", "-3");
  check_message(read_error(dir, "0 -1 1\n"), dir, 1, "a non-negative item id", "-1");
}

TEST_CASE("ratings: non-integer id") {
  TempDir dir;
  check_message(read_error(dir, "1.5 0 1\n"), dir, 1, "an integer user id", "1.5");
  check_message(read_error(dir, "0 abc 1\n"), dir, 1, "an integer item id", "abc");
}

TEST_CASE("ratings: id above kMaxId") {
  TempDir dir;
  const std::string too_big = std::to_string(gyre::data::kMaxId + 1);
  check_message(read_error(dir, too_big + " 0 1\n"), dir, 1, "user id in [0, 2147483646]", too_big);
  check_message(read_error(dir, "0 99999999999999999999999 1\n"), dir, 1, "item id in [0, 2147483646]");
}

TEST_CASE("ratings: rating that is not a finite number") {
  TempDir dir;
  check_message(read_error(dir, "0 0 good\n"), dir, 1, "a finite number as the rating", "good");
  check_message(read_error(dir, "0 0 1\n0 1 nan\n"), dir, 2, "a finite number", "nan");
  check_message(read_error(dir, "0 0 inf\n"), dir, 1, "a finite number", "inf");
  check_message(read_error(dir, "0 0 1e99\n"), dir, 1, "a finite number", "1e99");
  check_message(read_error(dir, "0 0 4.5x\n"), dir, 1, "a finite number", "4.5x");
}

TEST_CASE("ratings: empty file") {
  TempDir dir;
  check_message(read_error(dir, ""), dir, 0, "at least one rating", "an empty file");
  check_message(read_error(dir, "# only a comment\n\n"), dir, 0, "at least one rating", "no ratings");
}

TEST_CASE("ratings: missing file") {
  TempDir dir;
  const auto e = catch_input_error([&] { read_ratings(dir / "absent.tsv"); });
  check_message(e, dir, 0, "a readable file", "No such file or directory", "absent.tsv");
}

TEST_CASE("ratings: MatrixMarket ids are 1-based and the size line fixes the id space") {
  TempDir dir;
  write_text(dir / "m.mtx",
             "%%MatrixMarket matrix coordinate real general\n"
             "% a comment\n"
             "5 7 3\n"
             "1 1 2.5\n"
             "5 7 -1\n"
             "3 2 4\n");
  const auto set = read_ratings(dir / "m.mtx");
  CHECK(set.users == 5);
  CHECK(set.items == 7);
  REQUIRE(set.ratings.size() == 3);
  CHECK(set.ratings[0].user == 0);
  CHECK(set.ratings[0].item == 0);
  CHECK(set.ratings[1].user == 4);
  CHECK(set.ratings[1].item == 6);
  CHECK(set.ratings[2].value == 4.0f);
}

TEST_CASE("ratings: MatrixMarket integer field is accepted") {
  TempDir dir;
  write_text(dir / "m.mtx", "%%MatrixMarket matrix coordinate integer general\n2 2 1\n2 1 5\n");
  const auto set = read_ratings(dir / "m.mtx");
  REQUIRE(set.ratings.size() == 1);
  CHECK(set.ratings[0].user == 1);
  CHECK(set.ratings[0].value == 5.0f);
}

TEST_CASE("ratings: MatrixMarket id 0 is out of range") {
  TempDir dir;
  check_message(read_error(dir, "%%MatrixMarket matrix coordinate real general\n3 3 1\n0 1 1\n", "m.mtx"), dir, 3,
                "user id (row) in [1, 3]", "0", "m.mtx");
}

TEST_CASE("ratings: MatrixMarket id beyond the declared size") {
  TempDir dir;
  check_message(read_error(dir, "%%MatrixMarket matrix coordinate real general\n3 4 2\n1 1 1\n2 5 1\n", "m.mtx"),
                dir, 4, "item id (column) in [1, 4]", "5", "m.mtx");
}

TEST_CASE("ratings: MatrixMarket entry count must match the size line") {
  TempDir dir;
  const std::string banner = "%%MatrixMarket matrix coordinate real general\n%\n";
  check_message(read_error(dir, banner + "3 3 3\n1 1 1\n2 2 2\n", "m.mtx"), dir, 3,
                "3 entries as declared on this size line", "2 entries", "m.mtx");
  check_message(read_error(dir, banner + "3 3 1\n1 1 1\n2 2 2\n", "m.mtx"), dir, 5,
                "1 entries as declared on line 3", "2 2 2", "m.mtx");
}

TEST_CASE("ratings: MatrixMarket banner other than coordinate real|integer general") {
  TempDir dir;
  check_message(read_error(dir, "%%MatrixMarket matrix array real general\n3 3\n", "m.mtx"), dir, 1,
                "%%MatrixMarket matrix coordinate real|integer general", "", "m.mtx");
  check_message(read_error(dir, "%%MatrixMarket matrix coordinate real symmetric\n3 3 0\n", "m.mtx"), dir, 1,
                "coordinate real|integer general", "", "m.mtx");
}

TEST_CASE("ratings: write then read gives the same floats bit for bit") {
  TempDir dir;
  gyre::data::RatingsSet set;
  set.users = 4;
  set.items = 3;
  set.ratings = {{0, 2, 0.1f}, {3, 0, -1e-20f}, {1, 1, 3.4028235e38f}, {2, 2, 1.0f / 3.0f}};
  gyre::data::write_ratings(dir / "out.tsv", set);
  CHECK(dir.entries() == std::vector<std::string>{"out.tsv"});  // no temp file left behind
  const auto back = read_ratings(dir / "out.tsv");
  CHECK(back.users == 4);
  CHECK(back.items == 3);
  REQUIRE(back.ratings.size() == set.ratings.size());
  for (std::size_t i = 0; i < set.ratings.size(); ++i) {
    CHECK(back.ratings[i].user == set.ratings[i].user);
    CHECK(back.ratings[i].item == set.ratings[i].item);
    CHECK(back.ratings[i].value == set.ratings[i].value);
  }
  CHECK(gyre::test::read_text(dir / "out.tsv").rfind("0 2 0.1\n", 0) == 0);
}

TEST_CASE("read_ratings over many blocks: every rating in order, a bad line named at its true line") {
  // About 4 MiB of triples and of MatrixMarket: several of the reader's blocks, on 1 and 3
  // threads, with the lines cut at every block boundary.
  const TempDir dir;
  const std::uint32_t n = 300000;
  std::string triples, matrix = "%%MatrixMarket matrix coordinate real general\n% a comment\n";
  matrix += "1000 2000 " + std::to_string(n) + "\n";
  for (std::uint32_t i = 0; i < n; ++i) {
    const std::string a = std::to_string(i % 1000), b = std::to_string((i * 7) % 2000), v = std::to_string(i % 97) + ".25";
    triples += a + " " + b + " " + v + "\n";
    matrix += std::to_string(i % 1000 + 1) + " " + std::to_string((i * 7) % 2000 + 1) + " " + v + "\n";
  }
  write_text(dir / "t.tsv", triples);
  write_text(dir / "m.mtx", matrix);
  for (const std::size_t threads : {1u, 3u}) {
    const auto t = read_ratings(dir / "t.tsv", threads);
    const auto m = read_ratings(dir / "m.mtx", threads);
    REQUIRE(t.ratings.size() == n);
    REQUIRE(m.ratings.size() == n);
    CHECK(m.users == 1000);
    CHECK(m.items == 2000);
    for (std::uint32_t i = 0; i < n; i += 997) {
      CHECK(t.ratings[i].user == i % 1000);
      CHECK(t.ratings[i].item == (i * 7) % 2000);
      CHECK(t.ratings[i].value == static_cast<float>(i % 97) + 0.25f);
      CHECK(m.ratings[i].user == t.ratings[i].user);
      CHECK(m.ratings[i].item == t.ratings[i].item);
    }
    // A bad value on line 140,001, well past the first block.
    const std::string bad = gyre::test::with_line_inserted(triples, 140000, "1 2 x");
    write_text(dir / "bad.tsv", bad);
    const auto e = catch_input_error([&] { read_ratings(dir / "bad.tsv", threads); });
    REQUIRE(e.thrown);
    CHECK(e.line == 140001);
    CHECK(contains(e.message, "found 'x'"));
    // A count past the declared one is named at its line, whichever block holds it.
    write_text(dir / "more.mtx", matrix + "1 1 1\n");
    const auto more = catch_input_error([&] { read_ratings(dir / "more.mtx", threads); });
    REQUIRE(more.thrown);
    CHECK(more.line == n + 4);
  }
}

TEST_CASE("read_ratings from a pipe: read once, header and all") {
  const TempDir dir;
  const std::string matrix = "%%MatrixMarket matrix coordinate real general\n3 4 2\n1 2 0.5\n3 4 -1\n";
  {
    const gyre::test::FifoInput pipe(dir / "m.pipe", matrix);
    const auto set = read_ratings(pipe.path());
    REQUIRE(set.ratings.size() == 2);
    CHECK(set.users == 3);
    CHECK(set.items == 4);
    CHECK(set.ratings[1].item == 3);
  }
  {
    const gyre::test::FifoInput pipe(dir / "bad.pipe", "1 2 3\n4 5 x\n");
    const auto e = catch_input_error([&] { read_ratings(pipe.path()); });
    REQUIRE(e.thrown);
    CHECK(e.line == 2);
  }
}
