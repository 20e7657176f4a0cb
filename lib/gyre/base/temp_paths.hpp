// gyre/base/temp_paths.hpp — the temporary outputs a signal handler may remove before the process dies.
#pragma once

#include <filesystem>

namespace gyre {

// Outputs are written under temporary names and published on success; SIGINT or SIGTERM would
// otherwise leave those names behind. A TempPath records one such name (a file, or a flat
// directory of files) in a small fixed table for as long as it lives, and
// remove_temp_paths() removes whatever the table holds using only async-signal-safe calls.
//
// This table is the one piece of process-wide state in gyre, and it is inert: the library never
// installs a signal handler. gyre's binaries do (run_entry_point); an embedding service that
// wants the same cleanup calls remove_temp_paths() from its own handler. Files written through
// OutputFile usually have no name at all until they are published (O_TMPFILE), so only the
// fallback names and staged output directories pass through here.
class TempPath {
 public:
  TempPath() = default;
  TempPath(const std::filesystem::path& path, bool directory);
  TempPath(TempPath&& other) noexcept;
  TempPath& operator=(TempPath&& other) noexcept;
  TempPath(const TempPath&) = delete;
  TempPath& operator=(const TempPath&) = delete;
  // Forgets the path (it has been renamed into place or removed); does not touch the disk.
  ~TempPath() { release(); }
  void release() noexcept;

 private:
  int slot_ = -1;  // -1: not recorded (empty, or the table was full)
};

// Removes every recorded path: a file by unlink, a directory by unlinking its entries and then
// itself. Async-signal-safe; recorded paths stay recorded (the process is about to die).
void remove_temp_paths() noexcept;

}  // namespace gyre
