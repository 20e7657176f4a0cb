// gyre/rotation/rotate.hpp — the rotation engine in one call: the blocks made, the kernels run, the model returned where it is whole.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "gyre/base/export.hpp"
#include "gyre/model/block.hpp"
#include "gyre/rotation/phase.hpp"
#include "gyre/rotation/rotation_job.hpp"
#include "gyre/rotation/rotation_kernel.hpp"
#include "gyre/runtime/job.hpp"

namespace gyre::pipeline {

// What rotates: P · blocks_per_worker blocks of one shape (rows × stride floats), and how each starts.
struct RotationModel {
  int blocks_per_worker = 1;
  model::BlockShape shape;
  std::function<void(model::Block&)> init;  // a block's values before its first visit; empty: zeros
  scheduler::RingOrder order = scheduler::RingOrder::kFixed;
  std::uint64_t seed = 1;  // of the ring order
};

// Runs this process's members of `job` (rotation_job(P, backend), or the job runtime::start()
// hands its program): worker w's engine over kernel(w), which the caller keeps alive; the
// scheduler, wherever it runs, asks `policy` for each phase. Returns every block, in id order,
// in the process that hosts worker 0 (runtime::reports(job.backend)); an empty vector in the
// other processes, where the model is not whole. Throws as runtime::run does.
GYRE_API std::vector<model::Block> rotate(const runtime::Job& job, const RotationModel& model,
                                          const std::function<RotationKernel&(int worker)>& kernel,
                                          const scheduler::PhasePolicy& policy, const RotationOptions& options = {});

// A policy that trains `phases` phases, calling report(result) after each (where the scheduler
// runs: in the process that hosts worker 0).
GYRE_API scheduler::PhasePolicy train_phases(std::uint64_t phases,
                                             std::function<void(const scheduler::PhaseResult&)> report = {});

}  // namespace gyre::pipeline
