// apps/lasso/distributed.cpp — join the job, serve this process's rows, and on process 0 run the scheduler beside them.
#include "lasso/distributed.hpp"

#include <functional>
#include <numeric>
#include <stdexcept>

#include "gyre/data/regression_partition.hpp"
#include "gyre/pipeline/job_threads.hpp"

namespace gyre::lasso {

std::optional<LassoRun> solve_distributed(const data::RegressionSet& set, const LassoConfig& config,
                                          const SolveOptions& options, const pipeline::ClusterJobOptions& cluster) {
  const auto started = std::chrono::steady_clock::now();
  const int P = cluster.launch.size;
  if (config.workers != P) throw std::invalid_argument("a multi-process job has one worker per process");
  validate(set, config);
  const double y_offset = response_offset(set, config.intercept);
  const data::RegressionSet shard =
      std::move(data::shard_rows(set, static_cast<std::uint32_t>(P))[static_cast<std::size_t>(cluster.launch.rank)]);

  pipeline::ClusterGroups groups = pipeline::join_cluster(cluster);
  std::optional<LassoRun> run;
  std::function<void()> scheduler;
  if (groups.scheduler)
    scheduler = [&] {
      std::vector<int> ranks(static_cast<std::size_t>(P));
      std::iota(ranks.begin(), ranks.end(), 0);
      const PreparedData prepared = prepare(set, config);
      run = run_lasso_scheduler(*groups.scheduler, ranks, SchedulerData{set, prepared.columns, prepared.stats, started}, config,
                                options.on_check, options.timeout);
    };
  pipeline::run_beside(
      [&] {
        serve_rows(*groups.worker, shard, y_offset, config, P, options.timeout);
        if (options.on_traffic) options.on_traffic(groups.worker->bytes_sent());
      },
      scheduler);
  return run;
}

}  // namespace gyre::lasso
