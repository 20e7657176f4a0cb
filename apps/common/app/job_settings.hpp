// apps/common/app/job_settings.hpp — the settings every rank of a multi-process job must share: its flags and a digest of its inputs.
#pragma once

#include <CLI/CLI.hpp>

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

namespace gyre::app {

// name → canonical value, in the order the flags were declared; the type of
// cluster::JobSettings, which the rendezvous compares across ranks.
using Settings = std::vector<std::pair<std::string, std::string>>;

// Every flag of `app` whose value shapes the result: all of them but the multi-process group
// (ranks, addresses, timeouts differ per rank by nature), the flags named in `local` (outputs,
// --quiet, --threads: a rank's own business) and the flags named in `inputs`, whose paths may
// differ between hosts and are replaced by a digest of what they name ("input --train" →
// "6012 bytes, crc32c 0x1a2b3c4d"; a directory by its manifest.json if it has one, else by its
// files; a value that names no file, like "default", as it is). Numbers are compared by value ("0.050" is "0.05"); a flag left at its default is
// taken at its default, so giving the default explicitly changes nothing.
Settings job_settings(const CLI::App& app, const std::vector<std::string>& local, const std::vector<std::string>& inputs);

// "N bytes, crc32c 0x…" of a file, or of a directory's manifest.json (which holds its shards'
// checksums, checked on load) or its input files (data::list_input_files: not the hidden ones
// nor subdirectories, which no reader reads); "none" for an empty path.
std::string input_digest(const std::filesystem::path& path);

}  // namespace gyre::app
