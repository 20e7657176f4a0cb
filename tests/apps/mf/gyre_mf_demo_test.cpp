// tests/apps/mf/gyre_mf_demo_test.cpp — the README's quick-start demo prints the test RMSE the README says it does.
#include <doctest/doctest.h>

#include <regex>
#include <string>

#include "support/run_command.hpp"
#include "support/temp_dir.hpp"

using namespace gyre::test;

TEST_CASE("tools/dev/demo-mf.sh, on this build, ends at the test RMSE the README gives for it") {
  // The README's own words are the expectation: "... falls from about X to about Y in 20 epochs",
  // however its lines are wrapped.
  const auto readme = read_text(source_path("README.md"));
  std::smatch promised;
  REQUIRE_MESSAGE(std::regex_search(readme, promised, std::regex(R"(test RMSE\s+falls\s+from\s+about\s+([0-9.]+)\s+to\s+about\s+([0-9.]+)\s+in\s+20\s+epochs)")),
                  "README.md no longer says what the demo's test RMSE does");
  TempDir dir;
  CommandOptions o;
  o.environment = {{"GYRE_DEMO_BUILD", build_path("").string()}, {"GYRE_DEMO_DATA", dir.path().string()}};
  const auto r = run_command({"bash", source_path("tools/dev/demo-mf.sh").string()}, o);
  REQUIRE_MESSAGE(r.exit_code == 0, r.output);
  std::smatch first, last;
  REQUIRE(std::regex_search(r.output, first, std::regex(R"(epoch   1 .* test_rmse ([0-9.]+))")));
  REQUIRE_MESSAGE(std::regex_search(r.output, last, std::regex(R"(epoch  20 .* test_rmse ([0-9.]+))")), r.output);
  // "About" is to the README's two digits.
  CHECK(std::stod(first[1]) == doctest::Approx(std::stod(promised[1])).epsilon(0.06));
  CHECK(std::stod(last[1]) == doctest::Approx(std::stod(promised[2])).epsilon(0.06));
  CHECK(std::filesystem::exists(dir / "model" / "item_factors.tsv"));
}
