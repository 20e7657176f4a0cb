// gyre/runtime/backend_from.hpp — a process's backend in one call, from what its launcher set.
#pragma once

#include <string>

#include "gyre/base/export.hpp"
#include "gyre/cluster/launch.hpp"
#include "gyre/runtime/job.hpp"

namespace gyre::runtime {

// The backend this process runs a job on, from what its launcher put in `env`
// (cluster::environment_of(envp): the library never reads the environment itself):
//  - started by mpirun or srun (cluster::from_launcher), a ProcessesBackend for this process:
//    the coordinator from GYRE_COORDINATOR (HOST:PORT, served by process 0), the token from
//    GYRE_TOKEN, the data plane on loopback when the coordinator is, else on every address;
//  - otherwise ThreadsBackend: every worker a thread of this process.
// Throws std::invalid_argument naming the variable that is missing or malformed.
GYRE_API Backend backend_from(const cluster::Environment& env, const std::string& job_id = "gyre");

// The workers of a job on `backend`: one per process across processes, else `threads`.
GYRE_API int workers_on(const Backend& backend, int threads);
// Whether this process is the one that reports for the job (prints, writes): process 0, or
// the only one.
GYRE_API bool reports(const Backend& backend);

}  // namespace gyre::runtime
