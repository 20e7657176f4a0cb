// gyre/pipeline/embedded_job.hpp — the embedded default: P workers and the scheduler as threads of one process.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <vector>

#include "gyre/model/ownership.hpp"
#include "gyre/net/group.hpp"
#include "gyre/pipeline/rotation_kernel.hpp"
#include "gyre/scheduler/rotation_driver.hpp"
#include "gyre/scheduler/rotation_schedule.hpp"

namespace gyre::pipeline {

struct EmbeddedJobOptions {
  int threads_per_worker = 1;
  std::chrono::milliseconds timeout{std::chrono::minutes(10)};
  // Counts owners per block; the job fails if any block had two. Null: no counting in release
  // builds, while debug builds then count with a registry of their own.
  model::OwnershipRegistry* registry = nullptr;
  // Called after every visit with the worker's rank (tests check the schedule with it).
  std::function<void(int worker, const scheduler::Visit&)> on_visit;
};

struct EmbeddedWorker {
  RotationKernel* kernel = nullptr;           // not owned
  std::vector<model::Block> initial_blocks;   // schedule.held_at_start(rank, 0)
};

// Runs one rotation job over the inproc backend: worker w on its own thread with an arena of
// threads_per_worker, the scheduler (running `policy`) on another. Returns, per worker, the
// blocks it holds at the end. If any part fails, every part stops and JobFailed is thrown
// with the first failure's text. The initial blocks of all workers together must be every
// block of the schedule once; their shapes are the layout every worker checks arriving
// blocks against (std::invalid_argument otherwise).
std::vector<std::vector<model::OwnedBlock>> run_embedded(const scheduler::RotationSchedule& schedule,
                                                         std::vector<EmbeddedWorker> workers,
                                                         const scheduler::PhasePolicy& policy,
                                                         const EmbeddedJobOptions& options);

// The same over groups the caller made: P+1 ranks of one backend, 0..P-1 the workers and P the
// scheduler (tests run the engine over tcp on loopback this way).
std::vector<std::vector<model::OwnedBlock>> run_on_groups(std::vector<std::unique_ptr<net::Group>> groups,
                                                          const scheduler::RotationSchedule& schedule,
                                                          std::vector<EmbeddedWorker> workers,
                                                          const scheduler::PhasePolicy& policy,
                                                          const EmbeddedJobOptions& options);

}  // namespace gyre::pipeline
