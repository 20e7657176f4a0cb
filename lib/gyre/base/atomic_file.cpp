// gyre/base/atomic_file.cpp — temp-then-rename file writing.
#include "gyre/base/atomic_file.hpp"

#include <unistd.h>

#include <stdexcept>
#include <string>
#include <system_error>

namespace gyre {

AtomicFile::AtomicFile(std::filesystem::path path, std::ios::openmode mode)
    : path_(std::move(path)),
      temp_(path_.string() + ".tmp-" + std::to_string(::getpid())),
      out_(temp_, mode | std::ios::out | std::ios::trunc) {
  if (!out_) throw std::runtime_error("cannot create " + temp_.string());
}

AtomicFile::~AtomicFile() {
  if (!committed_) {
    out_.close();
    std::error_code ignored;
    std::filesystem::remove(temp_, ignored);
  }
}

void AtomicFile::commit() {
  out_.flush();
  if (!out_) throw std::runtime_error("write failed: " + temp_.string());
  out_.close();
  std::filesystem::rename(temp_, path_);  // atomic within one file system
  committed_ = true;
}

}  // namespace gyre
