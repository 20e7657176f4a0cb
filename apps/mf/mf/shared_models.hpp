// apps/mf/mf/shared_models.hpp — MF under Harp's locking, allreduce and no-sync models, on any backend.
#pragma once

#include <chrono>
#include <optional>
#include <vector>

#include "gyre/data/ratings.hpp"
#include "gyre/runtime/job.hpp"
#include "mf/trainer.hpp"

namespace gyre::mf {

// The same plan, kernels, epoch policy and reports as the rotation; only how workers share the
// item blocks differs (see ComputationModel). Workers are members 0 … P−1 and the scheduler
// member P (the phase driver for locking and allreduce; for no-sync, which has no barrier, a
// tally of the phases the workers report); locking adds the lock service, member P+1, which
// keeps the one copy of the item blocks and hands each block out with its lock.
//
// On a threads backend every member runs here; across processes this process runs the ones
// Job::host_of gives it. Every process is given every shard (the plan needs global counts) and
// trains those of its workers. The process that hosts worker 0 gathers the model and returns
// it; the others return nullopt. `timeout` is every member's longest wait for a peer.
std::optional<MfModel> train_shared_models(const MfConfig& config, std::vector<data::RatingsSet> train_shards,
                                           const data::RatingsStats& train, data::RatingsSet test, const TrainHooks& hooks,
                                           runtime::Backend backend, std::chrono::milliseconds timeout);

}  // namespace gyre::mf
