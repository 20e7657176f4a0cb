// gyre/cluster/launch.hpp — who am I: rank and size from flags or from a launcher's environment.
#pragma once

#include <map>
#include <optional>
#include <string>

#include "gyre/base/export.hpp"

namespace gyre::cluster {

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
