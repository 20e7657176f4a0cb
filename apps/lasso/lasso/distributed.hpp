// apps/lasso/lasso/distributed.hpp — one process's part of a multi-process Lasso job over tcp (mpirun, srun, or flags).
#pragma once

#include <optional>

#include "gyre/data/regression.hpp"
#include "gyre/pipeline/cluster_job.hpp"
#include "lasso/solver.hpp"

namespace gyre::lasso {

// Every process passes the whole data set (each reads the input) and keeps the rows of its own
// shard (data::shard_rows into as many parts as processes, so the shards are those of
// `--workers P` in one process); process 0 also runs the scheduler, which reads the columns.
// Returns the run on process 0 and nullopt elsewhere. config.workers must equal the number of
// processes. Throws scheduler::JobFailed, naming the rank, if any part of the job fails.
std::optional<LassoRun> solve_distributed(const data::RegressionSet& set, const LassoConfig& config,
                                          const SolveOptions& options, const pipeline::ClusterJobOptions& cluster);

}  // namespace gyre::lasso
