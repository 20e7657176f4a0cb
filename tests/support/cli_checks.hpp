// tests/support/cli_checks.hpp — what the apps' command-line tests check alike: JSON-lines metrics, and the bad-input contract.
#pragma once

#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include <sstream>
#include <string>
#include <vector>

#include "support/run_command.hpp"
#include "support/temp_dir.hpp"

namespace gyre::test {

inline std::vector<nlohmann::json> json_lines(const std::string& text) {
  std::vector<nlohmann::json> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(nlohmann::json::parse(line));
  return out;
}

// Runs `argv` (a bad input for `program`) and checks the contract: exit 2, "PROGRAM: error: ",
// the place (`where`: file, or file:line) and what was wrong, and nothing written to `dir`.
inline void expect_refused(const std::string& program, const std::vector<std::string>& argv, const TempDir& dir,
                           const std::string& where, const std::string& fragment) {
  const auto before = dir.entries();
  const auto r = run_command(argv);
  CHECK(r.exit_code == 2);
  CHECK_MESSAGE(r.output.find(program + ": error: ") != std::string::npos, r.output);
  CHECK_MESSAGE(r.output.find(where) != std::string::npos, r.output);
  CHECK_MESSAGE(r.output.find(fragment) != std::string::npos, r.output);
  CHECK(dir.entries() == before);  // nothing half-written
}

}  // namespace gyre::test
