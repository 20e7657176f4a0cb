// tests/lib/base/input_error_test.cpp — InputError's message: file, line, what was expected, what was found, all printable.
#include <doctest/doctest.h>

#include <string>

#include "gyre/base/input_error.hpp"

TEST_CASE("a file name with a newline or bytes that are not UTF-8 is shown with escapes, like what was found") {
  const gyre::InputError e(std::string("ratings\n\xFF.tsv"), 3, "a rating", "x\x01");
  CHECK(std::string(e.what()) == "ratings\\x0A\\xFF.tsv:3: expected a rating, found 'x\\x01'");
  CHECK(e.file() == std::string("ratings\n\xFF.tsv"));  // the path itself is kept as given
}
