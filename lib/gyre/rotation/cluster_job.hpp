// gyre/rotation/cluster_job.hpp — what an app knows of a multi-process job: its process, peers, secrets and limits.
#pragma once

#include <chrono>

#include "gyre/base/export.hpp"
#include "gyre/model/ownership.hpp"
#include "gyre/rotation/rotation_job.hpp"
#include "gyre/runtime/job.hpp"

namespace gyre::pipeline {

// How this process joins the job (the runtime's backend: launcher rank, coordinator, token,
// settings, connection limits, injected faults) and what the engines need besides.
struct ClusterJobOptions : runtime::ProcessesBackend {
  std::chrono::milliseconds timeout{std::chrono::minutes(10)};  // longest wait of a worker for work
  std::chrono::milliseconds visit_deadline{std::chrono::minutes(10)};  // longest visit (RotationOptions)
  model::OwnershipRegistry* registry = nullptr;
};

// The runtime's part of the options.
inline const runtime::ProcessesBackend& processes_backend(const ClusterJobOptions& options) { return options; }
// The engine options for a rotation run, with `threads` per worker and `depth` visits in flight
// (zero: the schedule's blocks per worker).
GYRE_API RotationOptions rotation_options(const ClusterJobOptions& options, int threads, int depth = 0);

}  // namespace gyre::pipeline
