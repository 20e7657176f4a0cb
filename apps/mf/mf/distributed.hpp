// apps/mf/mf/distributed.hpp — MF as one process per worker over tcp (mpirun, srun, or by hand); the model written in parts or gathered at rank 0.
#pragma once

#include <chrono>
#include <optional>
#include <vector>

#include "gyre/data/ratings.hpp"
#include "gyre/rotation/gather.hpp"
#include "gyre/rotation/rotation_job.hpp"
#include "mf/trainer.hpp"

namespace gyre::mf {

// This process's part of a job of `cluster.launch.size` workers (config.workers must match),
// under any of the four computation models. `train_shards` has one entry per worker of which only
// this rank's is used (the others may be empty), and `train` is the statistics of all of them,
// which the plan needs. Epoch reports are made on rank 0. With hooks.parts every rank writes its
// own part of the model there (write_parts) and all return nullopt; with hooks.discard_model
// nothing is written or gathered; otherwise rank 0 gathers the user rows and blocks of every rank
// and returns the model, and the others return nullopt. With
// the same seed, P, d and T the rotation's and the allreduce's models are bitwise the ones
// train_embedded produces.
std::optional<MfModel> train_distributed(const MfConfig& config, std::vector<data::RatingsSet> train_shards,
                                         const data::RatingsStats& train, data::RatingsSet test, const TrainHooks& hooks,
                                         const rotation::ClusterJobOptions& cluster);

// In worker `member`'s part once training has ended, while its links are up: rank 0 collects
// every worker's user rows and the blocks each hands in (`held`; between them every block
// once) and returns them; the others answer and return nullopt.
std::optional<rotation::GatheredModel> gather_model(const MfPlan& plan, const runtime::Member& member,
                                                    MfKernel& kernel, std::vector<model::OwnedBlock>& held,
                                                    std::chrono::milliseconds timeout);
// In worker `member`'s part once training has ended: every rank writes its user rows and the
// items of the blocks it hands in (`held`) as its part of the model at `target`, rank 0 the
// manifest (runtime::write_in_parts); nothing is gathered.
void write_parts(const MfPlan& plan, const runtime::Member& member, MfKernel& kernel,
                 std::vector<model::OwnedBlock>& held, const PartsTarget& target, std::chrono::milliseconds timeout);
// The model from what gather_model collected at rank 0.
MfModel assemble_gathered(const MfPlan& plan, const rotation::GatheredModel& parts);

}  // namespace gyre::mf
