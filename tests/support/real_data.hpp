// tests/support/real_data.hpp — where the tests find the real data sets that tools/data/fetch-*.sh
// install from Debian packages (the README's test command, tools/dev/test.sh, runs them).
#pragma once

#include <cstdlib>
#include <filesystem>

namespace gyre::test {

// ${GYRE_DATA_DIR:-$HOME/.cache/gyre}/relative: the default of fetch-regression.sh and
// fetch-ratings.sh, which put their data sets in its "regression" and "ratings" subdirectories.
// (fetch-corpora.sh alone takes GYRE_DATA_DIR as its corpora directory itself.)
inline std::filesystem::path real_data_path(const std::filesystem::path& relative) {
  if (const char* dir = std::getenv("GYRE_DATA_DIR")) return std::filesystem::path(dir) / relative;
  const char* home = std::getenv("HOME");
  return std::filesystem::path(home ? home : "/root") / ".cache/gyre" / relative;
}

}  // namespace gyre::test
