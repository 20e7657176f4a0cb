// tools/output_guard.hpp — removes what a failed run of a tool wrote, so no half-written output remains.
#pragma once

#include <filesystem>
#include <system_error>
#include <utility>
#include <vector>

namespace gyre::tools {

// The outputs of one run belong together. Unless commit() is called, the destructor removes
// every directory registered with directory() that this run created (with all it holds) and
// every file registered with file(). Register a directory before anything is written into it;
// register a file before writing it when a failed write may leave it stale (shards of an older
// partition), after writing it when an older version should survive a failed run.
class OutputGuard {
 public:
  OutputGuard() = default;
  OutputGuard(const OutputGuard&) = delete;
  OutputGuard& operator=(const OutputGuard&) = delete;

  void directory(std::filesystem::path dir) {
    std::error_code ec;
    if (!std::filesystem::exists(dir, ec)) created_.push_back(std::move(dir));
  }
  void file(std::filesystem::path file) { files_.push_back(std::move(file)); }
  void commit() { committed_ = true; }

  ~OutputGuard() {
    if (committed_) return;
    std::error_code ignored;
    for (const auto& f : files_) std::filesystem::remove(f, ignored);
    for (const auto& d : created_) std::filesystem::remove_all(d, ignored);
  }

 private:
  std::vector<std::filesystem::path> created_;
  std::vector<std::filesystem::path> files_;
  bool committed_ = false;
};

}  // namespace gyre::tools
