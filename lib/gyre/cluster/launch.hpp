// gyre/cluster/launch.hpp — who am I: rank and size from flags or from a launcher's environment; and the
// settings every rank of a job must agree on (canonical bytes, digest, first difference).
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "gyre/base/export.hpp"

namespace gyre::cluster {

// What every rank of a job must agree on: its canonical bytes, digest and first difference.

// An ordered list of name → canonical value text, e.g. {"--lambda", "0.05"} or
// {"input --train", "12345 bytes, crc32c 0x1a2b3c4d"}. Two ranks belong to the same job only
// if their lists are equal, order included.
using JobSettings = std::vector<std::pair<std::string, std::string>>;

// The largest encoded list a rank may send (the names and values, plus 4 bytes per count and length).
inline constexpr std::size_t kMaxSettingsBytes = 16 * 1024;

// Canonical bytes: u32 count, then per setting u32 length + name, u32 length + value (all
// little-endian). Throws std::invalid_argument beyond kMaxSettingsBytes.
GYRE_API std::vector<std::byte> encode_settings(const JobSettings& settings);

// The inverse, for bytes from a peer: every length is checked against what is left before
// anything is allocated. Throws wire::DecodeError (a std::runtime_error) on malformed bytes.
GYRE_API JobSettings decode_settings(std::span<const std::byte> bytes);

// 32 hex digits (128 bits of BLAKE2b over the canonical bytes): the settings' part of a job's
// identity, e.g. for net::TcpOptions::job_digest.
GYRE_API std::string settings_digest(const JobSettings& settings);

// Empty if the lists are equal; else the first difference, e.g. "rank 1's settings differ
// from rank 0's: --lambda is 0.05 on rank 1, 0.02 on rank 0" with `theirs_name` "rank 1" and
// `ours_name` "rank 0" (a setting on one side only is "not set" on the other).
GYRE_API std::string settings_difference(const JobSettings& theirs, const std::string& theirs_name, const JobSettings& ours,
                                         const std::string& ours_name);

struct Launch {
  int rank = 0;
  int size = 1;
  std::string source;  // "flags", "Open MPI", "PMI", "PMIx", "Slurm" or "default"
};

using Environment = std::map<std::string, std::string>;

// Rank and size as a launcher sets them: Open MPI (OMPI_COMM_WORLD_RANK/SIZE), PMIx (PMIX_RANK
// with the size from OMPI_COMM_WORLD_SIZE or PMI_SIZE), PMI (PMI_RANK/PMI_SIZE), Slurm
// (SLURM_PROCID/SLURM_NTASKS), tried in that order; nullopt when none is set. A variable
// that is set but not a valid number, or a rank outside the size, throws
// std::invalid_argument naming the variable.
//
// The library never reads the process environment itself: an entry point passes it in (see
// environment_of), so an embedding service decides what gyre sees.
GYRE_API std::optional<Launch> from_launcher(const Environment& env);

// Flags win over the launcher; with neither, one process (rank 0 of 1). Throws
// std::invalid_argument when only one of rank and count is given, or the rank is outside
// 0..count-1 ("process rank 3 outside 0..1").
GYRE_API Launch resolve_launch(std::optional<int> flag_rank, std::optional<int> flag_size, const Environment& env);

// Copies the variables above (and GYRE_TOKEN, GYRE_COORDINATOR) out of a process environment block.
GYRE_API Environment environment_of(char** envp);

}  // namespace gyre::cluster
