// gyre/base/output_check.hpp — before any work: every output can be written where it points, and none is an input.
#pragma once

#include <filesystem>
#include <span>
#include <string>

#include "gyre/base/output_directory.hpp"

namespace gyre {

struct OutputSpec {
  std::string flag;                          // "--metrics", "--out": how the user named it
  std::filesystem::path path;                // empty: no such output this run
  const DirectoryKind* directory = nullptr;  // set for a directory output of that kind
  // A directory the run writes into and keeps (checkpoints): made if missing, never replaced.
  bool kept = false;
};

// A tool calls this once its flags are parsed, so that a run that cannot deliver its outputs
// fails in a second rather than after hours of training. Throws std::invalid_argument naming the
// flag, the path and the reason when:
//  - a file output is a directory or a block device, or its directory is missing, read-only or
//    not writable (probed by creating a nameless file there, which leaves nothing behind);
//  - a directory output exists but is not a directory of its kind (see check_replaceable), or
//    its parent cannot take the staging directory;
//  - a kept directory is not a directory, cannot take new files (or, missing, cannot be made
//    where it is named), or lies at or inside a directory output that is replaced as a whole;
//  - an output is an input (the same file: same device and inode, whatever the path), a
//    directory output holds an input or another output, or two outputs are the same file.
// `inputs` may name files or directories; a directory's own entries count as inputs too (the
// shards of a partition).
void check_outputs(std::span<const OutputSpec> outputs, std::span<const std::filesystem::path> inputs);

}  // namespace gyre
