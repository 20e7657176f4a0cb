// gyre/base/output_file.hpp — an output file: replaced atomically when it is a file, written through when it is a device, a pipe or "-".
#pragma once

#include <filesystem>
#include <memory>
#include <ostream>

namespace gyre {

// How a path given for an output is written:
//  - "-", /dev/stdout, /dev/stderr, /dev/fd/N and /proc/self/fd/N: straight into that open
//    descriptor, so `--metrics /dev/stdout > log` appends to the shell's file as any program does;
//  - an existing character device, FIFO or socket (/dev/null, a named pipe): opened and written
//    through as data is produced — never renamed over, which as root would replace the device
//    node with a regular file;
//  - a block device or a directory: refused;
//  - anything else, a new name or a regular file (through any symlinks, which are followed so
//    that the link survives and its target is replaced): written to a file that has no name
//    until commit() links it in place of the old one, atomically. Readers see the old file or
//    the new, never a part; a run that fails or is killed (even by SIGKILL) leaves nothing. The
//    new file keeps the old one's permissions.
// Errors name the path and the system's reason ("No space left on device").
class OutputFile {
 public:
  explicit OutputFile(const std::filesystem::path& path);
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;
  ~OutputFile();

  std::ostream& stream();
  // Flushes, checks every write and publishes; throws std::runtime_error naming the path.
  void commit();
  // True when the target is written through (a device, a pipe, a standard stream): what was
  // written is already visible, and commit() only flushes.
  bool streams() const noexcept;
  const std::filesystem::path& path() const noexcept;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// What OutputFile would do with `path`, without touching it: kStream for the write-through
// kinds above, kReplace with the file that would be replaced (symlinks resolved) otherwise.
// Throws std::invalid_argument for a block device, a directory or an unusable descriptor path.
struct OutputTarget {
  enum Kind { kStream, kReplace } kind = kReplace;
  std::filesystem::path file;  // kReplace: the regular file (existing or not) that gets replaced
  int descriptor = -1;         // kStream of a standard stream or /dev/fd/N: that descriptor
};
OutputTarget resolve_output(const std::filesystem::path& path);

// The directory `file` is created in: its parent, or "." for a bare name.
std::filesystem::path directory_of(const std::filesystem::path& file);

}  // namespace gyre
