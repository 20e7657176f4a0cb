// tests/lib/data/regression_io_test.cpp — regression readers (LibSVM, MatrixMarket + response, CSV): accepted input, every bad-input message, round trips.
#include <doctest/doctest.h>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "gyre/base/input_error.hpp"
#include "gyre/data/regression.hpp"
#include "support/fifo_input.hpp"
#include "support/input_errors.hpp"
#include "support/temp_dir.hpp"

using namespace gyre::data;
using gyre::test::catch_input_error;
using gyre::test::check_input_error;
using gyre::test::contains;
using gyre::test::TempDir;
using gyre::test::write_text;

namespace {

gyre::test::CaughtInputError libsvm_error(const TempDir& dir, const std::string& text) {
  write_text(dir / "d.libsvm", text);
  return catch_input_error([&] { read_libsvm(dir / "d.libsvm"); });
}

gyre::test::CaughtInputError csv_error(const TempDir& dir, const std::string& text, const std::string& column = {}) {
  write_text(dir / "d.csv", text);
  return catch_input_error([&] { read_csv_regression(dir / "d.csv", column); });
}

bool same_regression_data(const RegressionSet& a, const RegressionSet& b) {
  return a.row_begin == b.row_begin && a.cols == b.cols && a.values == b.values && a.y == b.y &&
         a.features == b.features && a.sample_ids == b.sample_ids;
}

// Rows as dense vectors, for readable expectations.
std::vector<std::vector<double>> dense_rows(const RegressionSet& s) {
  std::vector<std::vector<double>> out(s.samples(), std::vector<double>(s.features, 0.0));
  for (std::uint64_t i = 0; i < s.samples(); ++i)
    for (std::uint64_t k = s.row_begin[i]; k < s.row_begin[i + 1]; ++k) out[i][s.cols[k]] = s.values[k];
  return out;
}

using Dense = std::vector<std::vector<double>>;

const char* kBanner = "%%MatrixMarket matrix coordinate real general\n";

}  // namespace

TEST_CASE("libsvm: labels, 1-based indices, comments, qid, blank lines, explicit zeros dropped") {
  TempDir dir;
  write_text(dir / "d.libsvm",
             "# header comment\n"
             "1.5 1:2 3:-0.25  # trailing\n"
             "\n"
             "-2 qid:7 2:1e-3 3:0\r\n"
             "0\n"
             "  3\t4:1\n");
  const RegressionSet s = read_libsvm(dir / "d.libsvm");
  CHECK(s.samples() == 4);
  CHECK(s.features == 4);
  CHECK(s.y == std::vector<double>{1.5, -2, 0, 3});
  CHECK(s.sample_ids == std::vector<std::uint64_t>{0, 1, 2, 3});
  CHECK(dense_rows(s) == Dense{{2, 0, -0.25, 0}, {0, 1e-3, 0, 0}, {0, 0, 0, 0}, {0, 0, 0, 1}});
  CHECK(s.nnz() == 4);
  CHECK(s.feature_names.empty());
}

TEST_CASE("libsvm: feature index 0 is an error naming it (the format is 1-based)") {
  TempDir dir;
  check_input_error(libsvm_error(dir, "1 1:1\n2 0:3 2:1\n"), dir / "d.libsvm", 2, "a 1-based feature index", "0:3");
}

TEST_CASE("libsvm: every other bad line names file, line and expectation") {
  TempDir dir;
  const auto file = dir / "d.libsvm";
  check_input_error(libsvm_error(dir, "abc 1:1\n"), file, 1, "a finite number as the label", "abc");
  check_input_error(libsvm_error(dir, "1 1:1\n1 2:x\n"), file, 2, "a finite number as the value of feature 2", "2:x");
  check_input_error(libsvm_error(dir, "1 3:1 2:1\n"), file, 1, "feature indices increasing within a line (after 3)", "2:1");
  check_input_error(libsvm_error(dir, "1 2:1 2:1\n"), file, 1, "increasing", "2:1");
  check_input_error(libsvm_error(dir, "1 5\n"), file, 1, "a feature \"index:value\"", "5");
  check_input_error(libsvm_error(dir, "1 -1:2\n"), file, 1, "a non-negative feature index (1-based)", "-1");
  check_input_error(libsvm_error(dir, "1 a:2\n"), file, 1, "an integer feature index", "a");
  check_input_error(libsvm_error(dir, "1 9999999999:2\n"), file, 1, "feature index (1-based) in [1, 2147483647]");
  check_input_error(libsvm_error(dir, "1 1:inf\n"), file, 1, "a finite number", "1:inf");
  check_input_error(libsvm_error(dir, "# nothing\n\n"), file, 0, "at least one sample", "no samples");
  check_input_error(libsvm_error(dir, ""), file, 0, "at least one sample");
  check_input_error(catch_input_error([&] { read_libsvm(dir / "absent"); }), dir / "absent", 0, "a readable file");
}

TEST_CASE("matrix market + response file: 1-based entries in any order, empty rows kept") {
  TempDir dir;
  write_text(dir / "x.mtx", std::string(kBanner) + "% comment\n3 3 4\n3 1 5\n1 2 -1\n1 1 2\n3 3 0\n");
  write_text(dir / "x.response", "1\n# comment\n\n2.5\n-3\n");
  const RegressionSet s = read_matrix_market_regression(dir / "x.mtx", dir / "x.response");
  CHECK(s.samples() == 3);
  CHECK(s.features == 3);
  CHECK(s.y == std::vector<double>{1, 2.5, -3});
  CHECK(dense_rows(s) == Dense{{2, -1, 0}, {0, 0, 0}, {5, 0, 0}});
  CHECK(s.sample_ids == std::vector<std::uint64_t>{0, 1, 2});
  CHECK(same_regression_data(load_regression(dir / "x.mtx"), s));  // STEM.response found beside it
}

TEST_CASE("matrix market: response column taken as y and dropped from X") {
  TempDir dir;
  write_text(dir / "x.mtx", std::string(kBanner) + "2 3 4\n1 1 1\n1 2 7\n1 3 4\n2 3 5\n");
  const RegressionSet s = read_matrix_market_regression(dir / "x.mtx", 2u);
  CHECK(s.features == 2);
  CHECK(s.y == std::vector<double>{7, 0});
  CHECK(dense_rows(s) == Dense{{1, 4}, {0, 5}});
  RegressionOptions o;
  o.response_column = "2";
  CHECK(same_regression_data(load_regression(dir / "x.mtx", o), s));
  check_input_error(catch_input_error([&] { read_matrix_market_regression(dir / "x.mtx", 4u); }), dir / "x.mtx", 2,
                    "a response column in [1, 3]", "4");
  o.response_column = "y";
  CHECK_THROWS_AS(load_regression(dir / "x.mtx", o), std::invalid_argument);
}

TEST_CASE("matrix market: bad matrix and bad response files") {
  TempDir dir;
  const auto x = dir / "x.mtx", r = dir / "x.response";
  write_text(r, "1\n2\n");
  const auto error = [&](const std::string& matrix) {
    write_text(x, matrix);
    return catch_input_error([&] { read_matrix_market_regression(x, r); });
  };
  check_input_error(error("1 2 3\n"), x, 1, "%%MatrixMarket matrix coordinate real|integer general");
  check_input_error(error("%%MatrixMarket matrix array real general\n"), x, 1, "coordinate real|integer general");
  check_input_error(error(std::string(kBanner) + "2 2 1\n0 1 1\n"), x, 3, "row (1-based) in [1, 2]", "0");
  check_input_error(error(std::string(kBanner) + "2 2 1\n1 3 1\n"), x, 3, "column (1-based) in [1, 2]", "3");
  check_input_error(error(std::string(kBanner) + "2 2 1\n1 1 abc\n"), x, 3, "a finite number as the value", "abc");
  check_input_error(error(std::string(kBanner) + "2 2 2\n1 1 1\n"), x, 2, "2 entries as declared on this size line");
  check_input_error(error(std::string(kBanner) + "2 2 2\n1 1 1\n2 2 1\n1 1 3\n"), x, 5, "2 entries as declared on line 2");
  check_input_error(error(std::string(kBanner) + "2 2 2\n1 1 1\n1 1 3\n"), x, 4,
                    "each entry once (row 1, column 1 is also on line 3)");
  check_input_error(error(std::string(kBanner) + "0 2 0\n"), x, 0, "at least one sample");

  write_text(x, std::string(kBanner) + "2 2 1\n1 1 1\n");
  const auto response_error = [&](const std::string& text) {
    write_text(r, text);
    return catch_input_error([&] { read_matrix_market_regression(x, r); });
  };
  // The empty response of issue 5: a response file with no values.
  check_input_error(response_error(""), r, 0, "2 values, one per row of " + x.string(), "an empty response");
  check_input_error(response_error("\n# only a comment\n"), r, 0, "2 values", "an empty response");
  check_input_error(response_error("1\n"), r, 0, "2 values, one per row of " + x.string(), "1 values");
  check_input_error(response_error("1\n2\n3\n"), r, 3, "2 values, one per row of " + x.string() + ", no more", "3");
  check_input_error(response_error("1\nfoo\n"), r, 2, "a finite number as the response (one per line)", "foo");
  std::filesystem::remove(r);
  check_input_error(catch_input_error([&] { load_regression(x); }), r, 0, "a readable file");
}

TEST_CASE("csv: header names the features, response by name, number or last; zeros stored sparsely") {
  TempDir dir;
  write_text(dir / "d.csv", "a, \"b\" ,y,c\n1,0,10,2\n\n0,0,20,0\r\n-1.5,3,30,0\n");
  const RegressionSet s = read_csv_regression(dir / "d.csv", "y");
  CHECK(s.features == 3);
  CHECK(s.feature_names == std::vector<std::string>{"a", "b", "c"});
  CHECK(s.y == std::vector<double>{10, 20, 30});
  CHECK(dense_rows(s) == Dense{{1, 0, 2}, {0, 0, 0}, {-1.5, 3, 0}});
  CHECK(s.nnz() == 4);
  CHECK(same_regression_data(read_csv_regression(dir / "d.csv", "3"), s));

  const RegressionSet last = read_csv_regression(dir / "d.csv");
  CHECK(last.feature_names == std::vector<std::string>{"a", "b", "y"});
  CHECK(last.y == std::vector<double>{2, 0, 0});
  RegressionOptions o;
  o.response_column = "y";
  CHECK(same_regression_data(load_regression(dir / "d.csv", o), s));
  CHECK(load_regression(dir / "d.csv", o).feature_names == s.feature_names);
}

TEST_CASE("csv: ragged rows, non-numeric values, unknown response column, empty data") {
  TempDir dir;
  const auto file = dir / "d.csv";
  check_input_error(csv_error(dir, "a,b,y\n1,2,3\n1,2\n"), file, 3, "3 fields as in the header (line 1)", "2 fields");
  check_input_error(csv_error(dir, "a,b,y\n1,2,3,4\n"), file, 2, "3 fields as in the header (line 1)", "4 fields");
  check_input_error(csv_error(dir, "a,b,y\n1,2,3\n1,x,3\n"), file, 3, "a finite number in column \"b\"", "x");
  check_input_error(csv_error(dir, "a,b,y\n1,,3\n"), file, 2, "a finite number in column \"b\"");
  check_input_error(csv_error(dir, "a,b,y\n1,2,3\n", "z"), file, 1,
                    "a column named \"z\" or a column number in [1, 3] for the response");
  check_input_error(csv_error(dir, "a,b,y\n1,2,3\n", "4"), file, 1, "column number in [1, 3]");
  check_input_error(csv_error(dir, "a,,y\n"), file, 1, "a name for every column", "column 2 unnamed");
  check_input_error(csv_error(dir, "y\n1\n"), file, 1, "at least one feature column");
  check_input_error(csv_error(dir, "a,b,y\n\n"), file, 0, "at least one sample", "no samples");
  check_input_error(csv_error(dir, "\n\n"), file, 0, "a CSV header row", "an empty file");
}

TEST_CASE("load_regression: format detection and options that do not apply") {
  TempDir dir;
  write_text(dir / "train.txt", "1 2:1\n");
  CHECK(load_regression(dir / "train.txt").features == 2);
  std::filesystem::create_directories(dir / "gen");
  write_text(dir / "gen" / "data.libsvm", "1 3:1\n");
  CHECK(load_regression(dir / "gen").features == 3);
  // Any other directory is its LibSVM files read as one: here train.txt (gen/ is a subdirectory).
  CHECK(load_regression(dir.path()).features == 2);
  std::filesystem::create_directories(dir / "empty");
  check_input_error(catch_input_error([&] { load_regression(dir / "empty"); }), dir / "empty", 0, "LibSVM files",
                    "a directory without any");
  RegressionOptions o;
  o.response = dir / "r";
  CHECK_THROWS_AS(load_regression(dir / "train.txt", o), std::invalid_argument);
  o.format = RegressionFormat::csv;
  CHECK_THROWS_AS(load_regression(dir / "train.txt", o), std::invalid_argument);
  o = {};
  o.format = RegressionFormat::csv;  // forced: the .txt is read as CSV
  write_text(dir / "t.txt", "a,y\n1,2\n");
  CHECK(load_regression(dir / "t.txt", o).y == std::vector<double>{2});
}

TEST_CASE("write_libsvm: round trip keeps every double, atomically") {
  TempDir dir;
  RegressionSet s;
  s.features = 5;
  const std::vector<std::uint32_t> c0{0, 4}, c1{}, c2{1, 2, 3};
  const std::vector<double> v0{0.1, -1e-300}, v1{}, v2{1.0 / 3, 2e10, -7};
  s.add_row(0, 0.30000000000000004, c0, v0);
  s.add_row(1, -2, c1, v1);
  s.add_row(2, 1e-7, c2, v2);
  write_libsvm(dir / "o.libsvm", s);
  CHECK(same_regression_data(read_libsvm(dir / "o.libsvm"), s));
  CHECK(dir.entries() == std::vector<std::string>{"o.libsvm"});
}

TEST_CASE("libsvm on T threads: the same set as one thread, and the same first error at its true line") {
  TempDir dir;
  std::string text = "# a header comment\n";
  for (int i = 0; i < 400; ++i) {
    text += (i % 3 == 0 ? "+1" : "-1");
    for (int j = 1 + i % 5; j < 60; j += 1 + (i + j) % 7) text += " " + std::to_string(j) + ":" + std::to_string((i * j) % 11 - 5);
    text += i % 50 == 7 ? "  # a comment\n" : "\n";
    if (i % 97 == 0) text += "\n";
  }
  write_text(dir / "d.libsvm", text);
  const RegressionSet one = read_libsvm(dir / "d.libsvm");
  REQUIRE(one.samples() == 400);
  for (const std::size_t threads : {2u, 3u, 7u, 64u}) {
    CAPTURE(threads);
    CHECK(same_regression_data(read_libsvm(dir / "d.libsvm", LabelKind::any, threads), one));
    CHECK(same_regression_data(read_libsvm(dir / "d.libsvm", LabelKind::two_classes, threads), one));
  }

  // A bad line near the end, and a third class before it: with two classes asked for, the third
  // class is the first error; without, the bad line is.
  std::string bad = text;
  const auto last = bad.rfind("\n-1 ", bad.size() - 2);
  bad.insert(last + 1, "-1 4:x\n");
  const auto third = bad.find("\n+1 ", bad.size() / 2);
  bad.replace(third + 1, 2, "+7");
  write_text(dir / "bad.libsvm", bad);
  const auto serial_any = catch_input_error([&] { read_libsvm(dir / "bad.libsvm"); });
  const auto serial_two = catch_input_error([&] { read_libsvm(dir / "bad.libsvm", LabelKind::two_classes); });
  REQUIRE(serial_any.thrown);
  REQUIRE(serial_two.thrown);
  CHECK(serial_two.line < serial_any.line);
  for (const std::size_t threads : {2u, 3u, 7u}) {
    CAPTURE(threads);
    CHECK(catch_input_error([&] { read_libsvm(dir / "bad.libsvm", LabelKind::any, threads); }).message ==
          serial_any.message);
    CHECK(catch_input_error([&] { read_libsvm(dir / "bad.libsvm", LabelKind::two_classes, threads); }).message ==
          serial_two.message);
  }
}

TEST_CASE("libsvm in pieces: parse_libsvm_text at a line offset, appended, equals the whole file; errors at the true line") {
  TempDir dir;
  std::string text;
  for (int i = 0; i < 120; ++i) {
    text += (i % 4 == 0 ? "+1" : "-1");
    for (int j = 1 + i % 3; j < 30; j += 1 + (i + j) % 5) text += " " + std::to_string(j) + ":" + std::to_string(i % 7 - 3);
    text += i % 40 == 5 ? "\n\n" : "\n";
  }
  write_text(dir / "d.libsvm", text);
  const RegressionSet whole = read_libsvm(dir / "d.libsvm");
  // Cut at a line start past the middle: the second piece's lines are numbered after the first's.
  const std::size_t cut = text.find('\n', text.size() / 2) + 1;
  const std::string_view first(text.data(), cut), second(text.data() + cut, text.size() - cut);
  const auto lines_before = static_cast<std::size_t>(std::count(first.begin(), first.end(), '\n'));
  RegressionSet joined = parse_libsvm_text(dir / "d.libsvm", first, 0, 2);
  append_rows(joined, parse_libsvm_text(dir / "d.libsvm", second, lines_before, 3));
  CHECK(same_regression_data(joined, whole));

  // A bad pair in the second piece: named at its line in the file, on any thread count.
  std::string bad(second);
  bad.insert(bad.find('\n', bad.size() / 2) + 1, "-1 2:x\n");
  write_text(dir / "bad.libsvm", std::string(first) + bad);
  const auto expected = catch_input_error([&] { read_libsvm(dir / "bad.libsvm"); });
  REQUIRE(expected.thrown);
  for (const std::size_t threads : {1u, 2u, 5u}) {
    CAPTURE(threads);
    CHECK(catch_input_error([&] { parse_libsvm_text(dir / "bad.libsvm", bad, lines_before, threads); }).message ==
          expected.message);
  }
  // A two-class check handed the labels seen before the piece finds a third class in it.
  TwoClassCheck classes(dir / "d.libsvm");
  classes.see(1, 0);
  classes.see(-1, 0);
  std::string third(second);
  third.replace(0, 2, "+5");
  const auto error = catch_input_error([&] { parse_libsvm_text(dir / "d.libsvm", third, lines_before, 1, &classes); });
  CHECK(error.line == lines_before + 1);
  CHECK(contains(error.message, "a label of one of two classes"));
}

TEST_CASE("regression_source: what load_regression reads for a path") {
  TempDir dir;
  write_text(dir / "d.libsvm", "1 1:2\n");
  write_text(dir / "d.csv", "a,y\n1,2\n");
  write_text(dir / "d.mtx", "%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 2\n");
  std::filesystem::create_directories(dir / "gen");
  write_text(dir / "gen/data.libsvm", "1 1:2\n");
  using Kind = RegressionSource::Kind;
  CHECK(regression_source(dir / "d.libsvm").kind == Kind::libsvm);
  CHECK(regression_source(dir / "d.csv").kind == Kind::csv);
  CHECK(regression_source(dir / "d.mtx").kind == Kind::matrix_market);
  const auto gen = regression_source(dir / "gen");
  CHECK(gen.kind == Kind::libsvm);
  CHECK(gen.path == dir / "gen/data.libsvm");
  RegressionOptions csv;
  csv.format = RegressionFormat::csv;
  CHECK(regression_source(dir / "d.libsvm", csv).kind == Kind::csv);
  // A directory without manifest.json or data.libsvm: its LibSVM files, of which d.csv is none.
  const auto files = regression_source(dir.path());
  CHECK(files.kind == Kind::libsvm);
  CHECK(files.path == dir.path());
  check_input_error(catch_input_error([&] { load_regression(dir.path()); }), dir / "d.csv", 0, "a LibSVM file", "a CSV file");
  CHECK_THROWS_AS(regression_source(dir.path(), csv), gyre::InputError);  // CSV is one file
}

TEST_CASE("libsvm: a directory of files read as one, in name order; each file's errors at its own lines; two classes over them all") {
  TempDir dir;
  const std::string a = "+1 1:1 3:2\n-1 2:1\n", b = "# only a comment, then\n-1 4:0.5\n+1 1:2\n", c = "+1 2:3\n";
  const auto input = dir / "in";
  std::filesystem::create_directories(input / "sub");
  write_text(input / "a.libsvm", a);
  write_text(input / "b.txt", b);
  write_text(input / "c", c);
  write_text(input / ".hidden", "not LibSVM\n");
  write_text(input / "sub" / "x.libsvm", "not LibSVM\n");
  write_text(dir / "joined.libsvm", a + b + c);
  const RegressionSet joined = read_libsvm(dir / "joined.libsvm");
  REQUIRE(joined.samples() == 5);
  for (const std::size_t threads : {1u, 3u}) {
    CAPTURE(threads);
    CHECK(same_regression_data(read_libsvm(input, LabelKind::any, threads), joined));
    CHECK(same_regression_data(read_libsvm(input, LabelKind::two_classes, threads), joined));
  }
  CHECK(same_regression_data(load_regression(input), joined));

  // A bad line in the last file and a third class in the second: with two classes asked for,
  // the third class comes first; without, the bad line, each at its own file's line.
  write_text(input / "c", "+1 2:3\n-1 0:1\n");
  check_input_error(catch_input_error([&] { read_libsvm(input); }), input / "c", 2, "a 1-based feature index");
  write_text(input / "b.txt", "# only a comment, then\n-1 4:0.5\n+3 1:2\n");
  for (const std::size_t threads : {1u, 3u})
    check_input_error(catch_input_error([&] { read_libsvm(input, LabelKind::two_classes, threads); }), input / "b.txt", 3,
                      "a label of one of two classes", "label 3");
  // Two classes over the files together, though each holds one; one class only names the directory.
  write_text(input / "a.libsvm", "+1 1:1\n");
  write_text(input / "b.txt", "-1 1:1\n");
  write_text(input / "c", "+1 2:3\n");
  CHECK(read_libsvm(input, LabelKind::two_classes).samples() == 3);
  write_text(input / "b.txt", "+1 1:1\n");
  check_input_error(catch_input_error([&] { read_libsvm(input, LabelKind::two_classes); }), input, 0,
                    "labels of two classes", "only label 1");
  // A file without a sample is an error naming it, as a file read alone is.
  write_text(input / "b.txt", "# nothing\n");
  check_input_error(catch_input_error([&] { read_libsvm(input); }), input / "b.txt", 0, "at least one sample", "no samples");
}

TEST_CASE("read_libsvm over many blocks: the whole text's rows, a bad pair named at its true line") {
  // About 4 MiB: several of the streamed reader's blocks, on 1 and 3 threads.
  const TempDir dir;
  constexpr std::uint64_t n = 60'000;
  std::string text;
  for (std::uint64_t i = 0; i < n; ++i) {
    text += (i % 3 ? "1" : "-1");
    for (std::uint64_t j = 1; j <= 6; ++j) text += " " + std::to_string(j * 10 + i % 7) + ":0." + std::to_string(i % 89 + 10);
    text += "\n";
  }
  write_text(dir / "a.libsvm", text);
  const RegressionSet whole = parse_libsvm_text(dir / "a.libsvm", text, 0, 1);
  for (const std::size_t threads : {1u, 3u}) {
    const RegressionSet set = read_libsvm(dir / "a.libsvm", LabelKind::any, threads);
    CHECK(set.samples() == n);
    CHECK(set.row_begin == whole.row_begin);
    CHECK(set.cols == whole.cols);
    CHECK(set.values == whole.values);
    CHECK(set.y == whole.y);
    CHECK(set.sample_ids == whole.sample_ids);
    CHECK(set.features == whole.features);
    const std::string bad = gyre::test::with_line_inserted(text, 55000, "1 3:x");
    write_text(dir / "bad.libsvm", bad);
    const auto e = catch_input_error([&] { read_libsvm(dir / "bad.libsvm", LabelKind::any, threads); });
    REQUIRE(e.thrown);
    CHECK(e.line == 55001);
  }
}

TEST_CASE("read_libsvm from a pipe") {
  const TempDir dir;
  const gyre::test::FifoInput pipe(dir / "a.pipe", "1 1:0.5 3:2\n-1 2:1\n");
  const RegressionSet set = read_libsvm(pipe.path(), LabelKind::any, 2);
  CHECK(set.samples() == 2);
  CHECK(set.features == 3);
  CHECK(set.cols == std::vector<std::uint32_t>{0, 2, 1});
}
