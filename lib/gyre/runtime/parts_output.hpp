// gyre/runtime/parts_output.hpp — after a cluster job: every worker writes its own part of the model into one output directory and rank 0 the manifest; nothing is gathered.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "gyre/base/output_directory.hpp"
#include "gyre/runtime/mailbox.hpp"
#include "gyre/wire/channels.hpp"

namespace gyre::runtime {

struct PartsOutput {
  std::filesystem::path directory;  // the output as the user named it (--out)
  DirectoryKind kind;               // what may be replaced there
  int workers = 1;                  // P: ranks 0..P-1 each write one part
  std::chrono::milliseconds timeout{std::chrono::minutes(10)};  // longest wait for any one rank
};

// Writes a part's files into the staging directory and returns what the manifest records of
// them (the app's text, at most kMaxPartNote bytes: counts, file names, checksums).
using WritePart = std::function<std::string(const std::filesystem::path& staging)>;
// Writes the manifest into the staging directory, given every rank's note in rank order.
using WriteManifest = std::function<void(const std::filesystem::path& staging, const std::vector<std::string>& notes)>;
// Generous: LDA's note carries each topic's top-word candidates (K × top words pairs, megabytes
// at K = 65535), and a note refused here would fail the job after all of its training.
inline constexpr std::size_t kMaxPartNote = std::size_t{256} << 20;

// Every worker of a finished job calls this once, in its part, with its member's mailbox while
// the links are up. Rank 0 opens `out.directory` as an OutputDirectory and tells the others
// where its staging directory is; every rank writes its part there (write_part); rank 0 then
// writes the manifest (write_manifest) and commits, and tells the others: readers see the old
// directory or the whole new one, and no rank ever holds another's part. The ranks must see the
// same file system at that path, as they do for checkpoints; a rank that does not see rank 0's
// staging directory, or cannot write its part, fails the job with an error naming itself and
// the directory. Throws JobFailed naming the rank awaited when one does not answer.
void write_in_parts(Mailbox& mailbox, const PartsOutput& out, const WritePart& write_part,
                    const WriteManifest& write_manifest);

// Message types (0x0203–): rank 0 sends the staging path, every other rank its part's note (or
// why it could not write it), rank 0 the outcome of the commit.
inline constexpr std::uint16_t kPartsWhere = wire::channels::kGather.at(2);
inline constexpr std::uint16_t kPartWritten = wire::channels::kGather.at(3);
inline constexpr std::uint16_t kPartsCommitted = wire::channels::kGather.at(4);

}  // namespace gyre::runtime
