// gyre/rotation/embedded_job.hpp — the embedded default: every worker and the scheduler in this process, the blocks returned.
#pragma once

#include <vector>

#include "gyre/base/export.hpp"
#include "gyre/model/ownership.hpp"
#include "gyre/rotation/rotation_job.hpp"

namespace gyre::pipeline {

using EmbeddedJobOptions = RotationOptions;
using EmbeddedWorker = RotationWorker;

// Runs one rotation job with every member in this process (runtime::ThreadsBackend by default,
// or runtime::LoopbackBackend for the real wire): worker w on its own thread with an arena of
// threads_per_worker, the scheduler (running `policy`) on another. Returns, per worker, the
// blocks it holds at the end. If any part fails, every part stops and the root cause is
// thrown: the kernel's own exception, or runtime::JobFailed with the first failure's text.
// The initial blocks of all workers together must be every block of the schedule once; their
// shapes are the layout every worker checks arriving blocks against (std::invalid_argument
// otherwise). Across processes, use run_rotation.
GYRE_API std::vector<std::vector<model::OwnedBlock>> run_embedded(const scheduler::RotationSchedule& schedule,
                                                                  std::vector<EmbeddedWorker> workers,
                                                                  const scheduler::PhasePolicy& policy,
                                                                  const EmbeddedJobOptions& options,
                                                                  runtime::Backend backend = runtime::ThreadsBackend{});
// The same on `job` (rotation_job(P, backend), or the job runtime::start() hands its program,
// whose control cancels the run).
GYRE_API std::vector<std::vector<model::OwnedBlock>> run_embedded(const runtime::Job& job,
                                                                  const scheduler::RotationSchedule& schedule,
                                                                  std::vector<EmbeddedWorker> workers,
                                                                  const scheduler::PhasePolicy& policy,
                                                                  const EmbeddedJobOptions& options);

}  // namespace gyre::pipeline
