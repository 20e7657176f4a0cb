// apps/mf/mf/distributed.hpp — MF as one process per worker over tcp (mpirun, srun, or by hand).
#pragma once

#include <optional>
#include <vector>

#include "gyre/data/ratings.hpp"
#include "gyre/pipeline/cluster_job.hpp"
#include "mf/trainer.hpp"

namespace gyre::mf {

// This process's part of a job of `cluster.launch.size` workers (config.workers must match).
// Every process is given the same `train_shards` (all of them: the plan needs global counts)
// and keeps its own. Epoch reports are made on rank 0, which also gathers the user rows and
// blocks of every rank and returns the model; the other ranks return nullopt. With the same
// seed, P, d and T the model is bitwise the one train_embedded produces.
std::optional<MfModel> train_distributed(const MfConfig& config, std::vector<data::RatingsSet> train_shards,
                                         const data::RatingsSet& test, const TrainHooks& hooks,
                                         const pipeline::ClusterJobOptions& cluster);

}  // namespace gyre::mf
