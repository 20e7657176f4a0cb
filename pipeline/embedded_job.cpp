// pipeline/embedded_job.cpp — threads for the workers and the scheduler over inproc groups.
#include "gyre/pipeline/embedded_job.hpp"

#include <memory>
#include <numeric>
#include <optional>
#include <stdexcept>
#include <string>

#include "gyre/net/inproc.hpp"
#include "gyre/pipeline/job_threads.hpp"
#include "gyre/pipeline/worker_engine.hpp"

namespace gyre::pipeline {
namespace {

// One process, one plan: the blocks the workers start with are every block of the job once,
// so their shapes are the layout every worker checks arrivals against.
std::vector<model::BlockShape> layout_of(const std::vector<EmbeddedWorker>& workers, int blocks) {
  std::vector<std::optional<model::BlockShape>> seen(static_cast<std::size_t>(blocks));
  for (const auto& w : workers)
    for (const auto& b : w.initial_blocks) {
      if (b.id() >= seen.size() || seen[b.id()])
        throw std::invalid_argument("initial block " + std::to_string(b.id()) + " is out of range or given twice");
      seen[b.id()] = b.shape();
    }
  std::vector<model::BlockShape> layout;
  for (std::size_t id = 0; id < seen.size(); ++id) {
    if (!seen[id]) throw std::invalid_argument("no worker starts with block " + std::to_string(id));
    layout.push_back(*seen[id]);
  }
  return layout;
}

}  // namespace

std::vector<std::vector<model::OwnedBlock>> run_embedded(const scheduler::RotationSchedule& schedule,
                                                         std::vector<EmbeddedWorker> workers,
                                                         const scheduler::PhasePolicy& policy,
                                                         const EmbeddedJobOptions& options) {
  return run_on_groups(net::make_inproc_groups(schedule.workers() + 1), schedule, std::move(workers), policy, options);
}

std::vector<std::vector<model::OwnedBlock>> run_on_groups(std::vector<std::unique_ptr<net::Group>> groups,
                                                          const scheduler::RotationSchedule& schedule,
                                                          std::vector<EmbeddedWorker> workers,
                                                          const scheduler::PhasePolicy& policy,
                                                          const EmbeddedJobOptions& options) {
  const int P = schedule.workers();
  if (static_cast<int>(workers.size()) != P) throw std::invalid_argument("one EmbeddedWorker per scheduled worker");
  if (static_cast<int>(groups.size()) != P + 1) throw std::invalid_argument("P workers need P+1 ranks");
  const std::vector<model::BlockShape> layout = layout_of(workers, schedule.blocks());
  model::OwnershipRegistry* registry = options.registry;
#ifndef NDEBUG
  // Debug builds always count owners, so a schedule bug shows up as an error, not as a race.
  std::unique_ptr<model::OwnershipRegistry> debug_registry;
  if (registry == nullptr) {
    debug_registry = std::make_unique<model::OwnershipRegistry>(static_cast<std::size_t>(schedule.blocks()));
    registry = debug_registry.get();
  }
#endif

  std::vector<std::vector<model::OwnedBlock>> results(static_cast<std::size_t>(P));
  run_parts(groups, [&](int rank) {
    auto& group = *groups[static_cast<std::size_t>(rank)];
    if (rank == P) {
      std::vector<int> ranks(static_cast<std::size_t>(P));
      std::iota(ranks.begin(), ranks.end(), 0);
      scheduler::RotationDriver(group, ranks, options.timeout).run(policy);
      return;
    }
    WorkerOptions wo;
    wo.threads = options.threads_per_worker;
    wo.scheduler_rank = P;
    wo.timeout = options.timeout;
    wo.registry = registry;
    if (options.on_visit) wo.on_visit = [&, rank](const scheduler::Visit& v) { options.on_visit(rank, v); };
    WorkerEngine engine(group, schedule, layout, *workers[static_cast<std::size_t>(rank)].kernel, std::move(wo));
    results[static_cast<std::size_t>(rank)] = engine.run(std::move(workers[static_cast<std::size_t>(rank)].initial_blocks));
  });
#ifndef NDEBUG
  // The blocks outlive this call; they must not point at the registry that dies with it.
  if (debug_registry)
    for (auto& worker : results)
      for (auto& block : worker) block = model::OwnedBlock(block.release(), nullptr);
#endif
  if (registry != nullptr && registry->violations() > 0)
    throw std::logic_error("block ownership violated " + std::to_string(registry->violations()) +
                           " time(s): two workers held one block");
  return results;
}

}  // namespace gyre::pipeline
