// apps/mf/mf/checkpoint.hpp — MF's checkpoints: a worker's user rows and kept item rows as its part, and the start a resume continues from.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "gyre/checkpoint/epoch_checkpoints.hpp"
#include "gyre/checkpoint/store.hpp"
#include "mf/mf_kernel.hpp"
#include "mf/trainer.hpp"

namespace gyre::mf {

// Makes a rotation run of `plan` write checkpoints to `target` (nothing when it has no store):
// each worker's part (encode_part of kernel_of(worker)) as a due epoch's training ends, the
// manifest from `policy`'s side once the next epoch is chosen.
void take_checkpoints(const MfPlan& plan, const checkpoint::CheckpointTarget& target, rotation::PhasePolicy& policy,
                      rotation::RotationOptions& options, std::function<const MfKernel&(int worker)> kernel_of);

// A worker's part: its user rows and the item rows of the blocks it keeps, by dense id, each
// row whole (factors, bias, AdaGrad's sums).
std::vector<std::byte> encode_part(const MfPlan& plan, const MfKernel& kernel, std::span<const model::Block* const> held);

// The scheduler's state in a manifest: the phase the next epoch starts at, the mean and the
// ratings' scale the run trains with.
std::string control_state(const MfPlan& plan, std::uint64_t next_phase);

// What a resume continues from: the model after `epoch` epochs in the dense id space of this
// run's input, as a warm start's (MfConfig::start), and the schedule's phase to go on at.
struct Resumed {
  std::shared_ptr<const MfModel> start;
  int epoch = 0;
  std::uint64_t phase = 0;
};

// Rebuilds the model of checkpoint `found` (whose settings the caller has checked against this
// run's) over `users` × `items` dense ids. Rows a checkpoint lacks (ids no worker holds) start
// as a fresh run starts them. With `keep_user` (by dense id) only those users' rows are kept
// (user_ids lists them): a process of a job keeps the users it trains. Throws InputError naming
// the part that does not fit the run.
Resumed read_checkpoint(const checkpoint::Found& found, const MfConfig& config, std::uint32_t users, std::uint32_t items,
                        const std::function<bool(std::uint32_t)>& keep_user = {});

// Makes `config` continue `resumed`: its start (and whether it has biases), epoch and phase,
// and the epochs left of the `target_epoch` the run was asked to reach.
void continue_from(MfConfig& config, const Resumed& resumed, int target_epoch);

}  // namespace gyre::mf
