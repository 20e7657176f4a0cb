// tests/lib/data/binary_labels_test.cpp — two-class labels: ±1, 0/1 and any two values accepted and mapped; a third class or a single one refused.
#include <doctest/doctest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "gyre/data/binary_labels.hpp"
#include "gyre/data/regression.hpp"
#include "support/input_errors.hpp"
#include "support/temp_dir.hpp"

using namespace gyre::data;
using gyre::test::catch_input_error;
using gyre::test::contains;
using gyre::test::TempDir;
using gyre::test::write_text;

namespace {

RegressionSet read_two_classes(const std::filesystem::path& file) {
  RegressionOptions options;
  options.labels = LabelKind::two_classes;
  return load_regression(file, options);
}

gyre::test::CaughtInputError two_class_error(const TempDir& dir, const std::string& text) {
  write_text(dir / "d.libsvm", text);
  return catch_input_error([&] { read_two_classes(dir / "d.libsvm"); });
}

}  // namespace

TEST_CASE("two-class LibSVM labels: ±1, 0/1 and {3, 7} are read and mapped smaller → 0, larger → 1") {
  TempDir dir;
  struct Case {
    std::string text;
    double zero, one;
    std::vector<double> y;
  };
  const std::vector<Case> cases{
      {"+1 1:2\n-1 2:1\n-1 1:1\n", -1, 1, {1, 0, 0}},
      {"0 1:2\n1 2:1\n# a comment\n\n1 1:1\n", 0, 1, {0, 1, 1}},
      {"7 1:2\n3 2:1\n7 1:1 3:4\n", 3, 7, {1, 0, 1}},
  };
  for (const Case& c : cases) {
    write_text(dir / "d.libsvm", c.text);
    const RegressionSet set = read_two_classes(dir / "d.libsvm");
    const BinaryLabels labels = binary_labels(set.y);
    CHECK(labels.classes.zero == c.zero);
    CHECK(labels.classes.one == c.one);
    CHECK(labels.y == c.y);
  }
}

TEST_CASE("a third class is refused naming the file, the line of its first label and the two classes seen") {
  TempDir dir;
  const auto e = two_class_error(dir, "1 1:2\n\n2 2:1\n1 1:1\n3 1:5\n2 2:2\n");
  INFO(e.message);
  REQUIRE(e.thrown);
  CHECK(e.file == dir / "d.libsvm");
  CHECK(e.line == 5);
  CHECK(contains(e.message, (dir / "d.libsvm").string() + ":5: expected "));
  CHECK(contains(e.message, "already has labels 1 and 2"));
  CHECK(contains(e.message, "label 3"));
  // Read as regression data, the same file is fine.
  CHECK(read_libsvm(dir / "d.libsvm").samples() == 5);
}

TEST_CASE("a single class is refused, by the reader and by the mapping") {
  TempDir dir;
  const auto e = two_class_error(dir, "1 1:2\n1 2:1\n");
  INFO(e.message);
  REQUIRE(e.thrown);
  CHECK(e.line == 0);
  CHECK(contains(e.message, "labels of two classes"));
  CHECK(contains(e.message, "only label 1"));
  CHECK_THROWS_AS(binary_labels(std::vector<double>{4, 4, 4}), std::invalid_argument);
}

TEST_CASE("the mapping alone names the sample of a third class (inputs read without label lines)") {
  try {
    binary_labels(std::vector<double>{1, 2, 1, 3});
    FAIL("no error");
  } catch (const std::invalid_argument& e) {
    CHECK(contains(e.what(), "sample 4 has label 3 beside 1 and 2"));
  }
  const BinaryLabels labels = binary_labels(std::vector<double>{-1, 1, 1});
  CHECK(labels.y == std::vector<double>{0, 1, 1});
}
