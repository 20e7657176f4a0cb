// gyre/checkpoint/epoch_checkpoints.hpp — checkpoints of a rotation job between epochs: each worker writes its part as an epoch's training ends, the scheduler makes them whole.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "gyre/checkpoint/store.hpp"
#include "gyre/rotation/rotation_job.hpp"

namespace gyre::checkpoint {

// Where an app's run writes checkpoints, as its command line says: the store (null: none), every
// how many epochs, and the run's settings, recorded for a resume's check.
struct CheckpointTarget {
  std::shared_ptr<const Store> store;
  int every = 1;
  cluster::JobSettings settings;
};

// When a run takes checkpoints, and where. Epochs are counted over the model's whole life, so a
// resumed run keeps the cadence of the run it continues.
struct EpochCheckpoints {
  std::shared_ptr<const Store> store;
  int every = 1;         // a checkpoint after every epoch that is a multiple of this
  int first_epoch = 0;   // epochs done before this run (a resume's or a warm start's)
  int leading_phases = 0;  // training phases at the run's start that are no epoch (LDA's initialisation)
  int last_epoch = 0;    // the run's final epoch: not checkpointed, its model is the run's output
  int workers = 1;
  std::uint64_t first_phase = 0;  // the schedule's phases before this run (RotationSchedule's first_phase)
  cluster::JobSettings settings;  // recorded in each manifest, for the resume's check

  // The target's store, cadence and settings; the rest is the run's.
  explicit EpochCheckpoints(const CheckpointTarget& target)
      : store(target.store), every(target.every), settings(target.settings) {}

  int phases_per_epoch = 1;  // training phases an epoch takes (gyre-mf's CCD++ takes several)

  // Whether the run's `trained`-th training phase (from 1) ends a due epoch: that epoch, or none.
  std::optional<int> due_after(int trained) const {
    const int epoch_phases = trained - leading_phases;
    if (epoch_phases <= 0 || epoch_phases % phases_per_epoch != 0) return std::nullopt;
    const int epoch = first_epoch + epoch_phases / phases_per_epoch;
    if (epoch > first_epoch && epoch < last_epoch && epoch % every == 0) return epoch;
    return std::nullopt;
  }
};

// A worker's part: what the app needs to rebuild the worker's state and the blocks it keeps
// (`held`) after the training phase of an epoch. Called on the worker's thread.
using SavePart = std::function<std::vector<std::byte>(int worker, std::span<const model::Block* const> held)>;

// RotationOptions::at_phase_end for this job: counts each worker's training phases and, at the
// end of the training phase of a due epoch, writes `save`'s bytes as the worker's part. The
// scheduler hears of the phase only afterwards, so once every worker has reported it every
// part is on disk.
std::function<void(int, std::uint64_t, rotation::PhaseKind, std::span<const model::Block* const>)> part_writer(
    std::shared_ptr<const EpochCheckpoints> checkpoints, SavePart save);

// The control plane's part: what the manifest records besides the epoch, given the phase (of
// the schedule's whole life) at which the next epoch's training starts. JSON text.
using ControlState = std::function<std::string(std::uint64_t next_phase)>;

// `inner`, which also makes the checkpoint of a due epoch whole: once the next epoch's training
// phase is chosen (after any evaluation of the epoch, so that the phase a resume starts at is
// known), every part is on disk and the manifest is written.
rotation::PhasePolicy committing(rotation::PhasePolicy inner, std::shared_ptr<const EpochCheckpoints> checkpoints,
                                  ControlState state);

// Both: `options` writes the workers' parts, `policy` makes them whole.
void take_checkpoints(std::shared_ptr<const EpochCheckpoints> checkpoints, SavePart save, ControlState state,
                      rotation::PhasePolicy& policy, rotation::RotationOptions& options);

}  // namespace gyre::checkpoint
