// apps/mf/mf/shared_models.hpp — MF under Harp's locking, allreduce and no-sync models, in one process.
#pragma once

#include <vector>

#include "gyre/data/ratings.hpp"
#include "mf/trainer.hpp"

namespace gyre::mf {

// The same plan, kernels, epoch policy and reports as the rotation; only how workers share the
// item blocks differs (see ComputationModel). P worker threads, the scheduler's driver on rank
// P, and for locking the lock service on rank P+1, over inproc groups. Embedded only for now:
// gyre-mf refuses these models across processes.
MfModel train_shared_models(const MfConfig& config, std::vector<data::RatingsSet> train_shards,
                            const data::RatingsSet& test, const TrainHooks& hooks);

}  // namespace gyre::mf
