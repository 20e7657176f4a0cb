// apps/lasso/lasso/checkpoint.hpp — Lasso's checkpoints: taken at a check, each worker's residual and the scheduler's whole state, and reading them back.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "gyre/checkpoint/epoch_checkpoints.hpp"
#include "gyre/checkpoint/part_bytes.hpp"
#include "lasso/active_set_cycle.hpp"

namespace gyre::lasso {

// Where a run's checkpoints go and the one it starts from. A checkpoint is taken right after a
// check (an exact full gradient) has been decided, when no round is in flight: the scheduler
// sends every worker a snapshot round (RoundKind::kSnapshot, carrying the steps still queued);
// each worker applies them, writes its part (rank-r.part: its residual, which cannot be
// recomputed from β bit for bit, as it is the sum of every step in the order taken) and answers;
// then the scheduler writes its own (rank-P.part: β, priorities and the sampler's state, the λ
// path so far and its position, batch and depth, the counters) and the manifest. A checkpoint's
// number ("epoch" in the store) is the number of checks reported so far.
using CheckpointTarget = checkpoint::CheckpointTarget;  // store (null: none), every N checks, settings

struct Checkpoints {
  CheckpointTarget target;
  std::optional<checkpoint::Found> resume;  // the checkpoint this run continues from
};

using checkpoint::OpenedPart;
using checkpoint::StateReader;
using checkpoint::StateWriter;
using checkpoint::open_part;

// What the two shards (residuals, margins) share in their parts: how many parts their rows are
// dealt into (which --threads decides, and the sums' bits depend on), and, for a worker that runs
// cycles, the coefficients it follows, one scalar (μᵀβ or the intercept) and its cycle depth.
void save_parts(StateWriter& out, std::size_t parts);
void check_parts(StateReader& in, std::size_t parts);
void save_cycles(StateWriter& out, bool cycles, const std::vector<double>& gamma, double scalar,
                 const CycleTolerance& depth);
struct CycleState {
  bool cycles;                 // whether this run's shard runs them
  std::vector<double>& gamma;  // sized to the features
  double& scalar;
  CycleTolerance& depth;
};
void restore_cycles(StateReader& in, const CycleState& state);

// The manifest's state: which check the checkpoint was taken after.
std::string manifest_state(std::uint64_t checks);

}  // namespace gyre::lasso
