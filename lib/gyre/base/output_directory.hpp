// gyre/base/output_directory.hpp — a directory of output files published as a whole: readers see the old set or the new, never a mix.
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gyre/base/temp_paths.hpp"

namespace gyre {

// What a kind of output directory holds. An existing directory is replaced only when every
// entry in it is a file this kind writes (an empty one qualifies), so that `--out ~` or a
// directory of someone else's files is refused instead of being swapped away.
struct DirectoryKind {
  std::string what;                                 // "a gyre-mf model", for messages
  std::function<bool(std::string_view name)> owns;  // a file name this kind of output writes

  // A kind that writes exactly these file names.
  static DirectoryKind of_files(std::string what, std::vector<std::string> names);
};

// Throws std::invalid_argument, naming `path` and the first foreign entry, unless `path` is
// missing, or a directory (or a symlink to one) that holds only files `kind` owns.
void check_replaceable(const std::filesystem::path& path, const DirectoryKind& kind);

// The files go into staging(), a hidden directory beside the target on the same file system;
// commit() then puts it in the target's place in one step (renameat2 RENAME_EXCHANGE where the
// file system has it, else two renames) and removes the old contents. A symlink at the target
// is followed and its directory replaced; the new directory keeps the old one's mode and owner.
// Hidden staging directories that runs killed mid-write left beside the same target (their
// process has ended) are removed, with a line on stderr. Without commit() the staging directory is removed:
// by the destructor after an exception, by remove_temp_paths() after a signal.
class OutputDirectory {
 public:
  OutputDirectory(const std::filesystem::path& path, DirectoryKind kind);
  OutputDirectory(const OutputDirectory&) = delete;
  OutputDirectory& operator=(const OutputDirectory&) = delete;
  ~OutputDirectory();

  const std::filesystem::path& staging() const noexcept { return staging_; }
  const std::filesystem::path& target() const noexcept { return target_; }
  // Throws std::runtime_error naming the target on failure; the old directory then stays.
  void commit();

 private:
  std::filesystem::path path_;     // as given
  std::filesystem::path target_;   // symlinks resolved
  std::filesystem::path staging_;
  DirectoryKind kind_;
  TempPath staging_record_;
  std::optional<unsigned> mode_;  // of the directory replaced, which the new one keeps
  bool committed_ = false;
};

}  // namespace gyre
