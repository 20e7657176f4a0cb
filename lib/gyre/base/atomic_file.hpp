// gyre/base/atomic_file.hpp — write a file under a temporary name, rename on commit.
#pragma once

#include <filesystem>
#include <fstream>

namespace gyre {

// Readers of our outputs never see half a file: the data goes to "<path>.tmp-<pid>" and
// commit() renames it over <path>. Destroying an uncommitted AtomicFile removes the temp file,
// so an exception between open and commit leaves nothing behind.
class AtomicFile {
 public:
  explicit AtomicFile(std::filesystem::path path, std::ios::openmode mode = std::ios::out);
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;
  ~AtomicFile();

  std::ofstream& stream() { return out_; }
  // Flushes, checks the stream and renames; throws std::runtime_error on any I/O failure.
  void commit();

 private:
  std::filesystem::path path_;
  std::filesystem::path temp_;
  std::ofstream out_;
  bool committed_ = false;
};

}  // namespace gyre
