// tests/lib/base/json_input_test.cpp — JSON from files as untrusted input: depth bounded, lines named, values shown in short.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include <string>

#include "gyre/base/input_error.hpp"
#include "gyre/base/json_input.hpp"

using gyre::InputError;
using gyre::json_excerpt;
using gyre::kMaxJsonDepth;
using gyre::parse_json;

TEST_CASE("a document nested deeper than the bound is refused naming the line, before any recursion") {
  const std::string deep = "\n\n" + std::string(100000, '[') + std::string(100000, ']');
  CHECK_THROWS_WITH_AS(parse_json(deep, "m/model.json", "a JSON object"),
                       doctest::Contains("m/model.json:3: expected a JSON object, found 'JSON nested more than 64"),
                       InputError);
  const std::string at_bound = std::string(kMaxJsonDepth, '[') + std::string(kMaxJsonDepth, ']');
  CHECK(parse_json(at_bound, "f", "x").is_array());
  const std::string one_more = "{\"a\":" + at_bound + "}";
  CHECK_THROWS_AS(parse_json(one_more, "f", "x"), InputError);
  // Brackets inside strings are text, escaped quotes included.
  const std::string text = "{\"s\": \"" + std::string(200, '[') + "\\\"[[[\"}";
  CHECK(parse_json(text, "f", "x").at("s").get<std::string>().size() == 204);
}

TEST_CASE("text that is not JSON is an InputError at its line; an empty file says so") {
  CHECK_THROWS_WITH_AS(parse_json("{\n\"a\": 1,\n\"b\": }", "f.json", "a manifest"), doctest::Contains("f.json:3:"),
                       InputError);
  CHECK_THROWS_WITH_AS(parse_json("", "f.json", "a manifest"), doctest::Contains("an empty file"), InputError);
}

TEST_CASE("an excerpt shows a scalar as written and a container by its size, never the whole") {
  CHECK(json_excerpt(nlohmann::json(3)) == "3");
  CHECK(json_excerpt(nlohmann::json("gyre-mf")) == "\"gyre-mf\"");
  CHECK(json_excerpt(nlohmann::json::array({1, 2, 3})) == "an array of 3 elements");
  CHECK(json_excerpt(nlohmann::json{{"a", 1}}) == "an object of 1 field");
  const std::string excerpt = json_excerpt(nlohmann::json(std::string(10000, 'x')));
  CHECK(excerpt.size() < 100);
  CHECK(excerpt.find("cut from 10000 bytes") != std::string::npos);
  // A cut through a character is shown replaced, not thrown.
  std::string accents;
  for (int i = 0; i < 40; ++i) accents += "\xC3\xA9";
  CHECK_NOTHROW(json_excerpt(nlohmann::json(accents)));
}
