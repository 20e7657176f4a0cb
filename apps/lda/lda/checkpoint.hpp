// apps/lda/lda/checkpoint.hpp — LDA's checkpoints: a worker's token topics and kept word-topic blocks as its part, and the start a resume continues from.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <span>
#include <vector>

#include "gyre/checkpoint/epoch_checkpoints.hpp"
#include "gyre/checkpoint/store.hpp"
#include "lda/lda_kernel.hpp"
#include "lda/trainer.hpp"

namespace gyre::lda {

// Makes a rotation run of `plan` write checkpoints to `target` (nothing when it has no store):
// each worker's part (its token topics, the job's topic totals and the blocks it keeps) as a
// due epoch's sweep ends; the manifest from `policy`'s side once the next sweep starts.
void take_checkpoints(const LdaPlan& plan, const checkpoint::CheckpointTarget& target, rotation::PhasePolicy& policy,
                      rotation::RotationOptions& options, std::function<const LdaKernel&(int worker)> kernel_of);

// The state of checkpoint `found` (whose settings the caller has checked against this run's):
// every block's counts, the totals, and the token topics of the workers `hosted` says this
// process runs. Throws InputError naming a part that does not fit (other K, a block twice).
std::shared_ptr<const LdaStart> read_checkpoint(const checkpoint::Found& found, std::uint32_t topics,
                                                const std::function<bool(int worker)>& hosted);

}  // namespace gyre::lda
