// tests/support/corpora.hpp — where tools/data/fetch-corpora.sh put a real corpus (the README's test command runs it).
#pragma once

#include <cstdlib>
#include <filesystem>
#include <string>

namespace gyre::test {

// DIR/NAME/docs.txt, one document per line, DIR being fetch-corpora.sh's default:
// $GYRE_DATA_DIR, else ~/.cache/gyre/corpora.
inline std::filesystem::path corpus_file(const std::string& name) {
  if (const char* dir = std::getenv("GYRE_DATA_DIR")) return std::filesystem::path(dir) / name / "docs.txt";
  const char* home = std::getenv("HOME");
  return std::filesystem::path(home ? home : "/root") / ".cache/gyre/corpora" / name / "docs.txt";
}

}  // namespace gyre::test
