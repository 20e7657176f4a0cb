// tests/support/fifo_input.hpp — a named pipe that a thread writes a text into, as `<(zcat f.gz)` hands a reader its input.
#pragma once

#include <sys/stat.h>

#include <filesystem>
#include <stdexcept>
#include <string>
#include <thread>

#include "support/temp_dir.hpp"

namespace gyre::test {

// Makes the FIFO `path` and writes `text` into it from a thread, once a reader opens it; the
// destructor waits for the writer (which blocks until the pipe is opened: read it first).
class FifoInput {
 public:
  FifoInput(std::filesystem::path path, std::string text) : path_(std::move(path)) {
    if (::mkfifo(path_.c_str(), 0600) != 0) throw std::runtime_error("mkfifo failed for " + path_.string());
    writer_ = std::thread([this, text = std::move(text)] { write_text(path_, text); });
  }
  FifoInput(const FifoInput&) = delete;
  FifoInput& operator=(const FifoInput&) = delete;
  ~FifoInput() { writer_.join(); }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
  std::thread writer_;
};

}  // namespace gyre::test
