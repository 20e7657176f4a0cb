// gyre/rotation/embedded_job.cpp — a rotation job whose members all run here, and the blocks they end with.
#include "gyre/rotation/rotation_job.hpp"

#include <memory>
#include <optional>
#include <stdexcept>
#include <string>

namespace gyre::rotation {
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

std::vector<std::vector<model::OwnedBlock>> run_embedded(const RotationSchedule& schedule,
                                                         std::vector<EmbeddedWorker> workers,
                                                         const PhasePolicy& policy,
                                                         const EmbeddedJobOptions& options, runtime::Backend backend) {
  return run_embedded(rotation_job(schedule.workers(), std::move(backend)), schedule, std::move(workers), policy, options);
}

std::vector<std::vector<model::OwnedBlock>> run_embedded(const runtime::Job& job,
                                                         const RotationSchedule& schedule,
                                                         std::vector<EmbeddedWorker> workers,
                                                         const PhasePolicy& policy,
                                                         const EmbeddedJobOptions& options) {
  const int P = schedule.workers();
  if (static_cast<int>(workers.size()) != P) throw std::invalid_argument("one EmbeddedWorker per scheduled worker");
  if (std::holds_alternative<runtime::ProcessesBackend>(job.backend))
    throw std::invalid_argument("run_embedded runs every member here; across processes, use run_rotation");
  const std::vector<model::BlockShape> layout = layout_of(workers, schedule.blocks());
  RotationOptions o = options;
#ifndef NDEBUG
  // Debug builds always count owners, so a schedule bug shows up as an error, not as a race.
  std::unique_ptr<model::OwnershipRegistry> debug_registry;
  if (o.registry == nullptr) {
    debug_registry = std::make_unique<model::OwnershipRegistry>(static_cast<std::size_t>(schedule.blocks()));
    o.registry = debug_registry.get();
  }
#endif

  std::vector<std::vector<model::OwnedBlock>> results(static_cast<std::size_t>(P));
  run_rotation(
      job, schedule, layout,
      [&](int rank) { return std::move(workers[static_cast<std::size_t>(rank)]); }, policy, o,
      [&](const runtime::Member& m, std::vector<model::OwnedBlock> held) {
        results[static_cast<std::size_t>(m.rank)] = std::move(held);
      });
#ifndef NDEBUG
  // The blocks outlive this call; they must not point at the registry that dies with it.
  if (debug_registry)
    for (auto& worker : results)
      for (auto& block : worker) block = model::OwnedBlock(block.release(), nullptr);
#endif
  if (o.registry != nullptr && o.registry->violations() > 0)
    throw std::logic_error("block ownership violated " + std::to_string(o.registry->violations()) +
                           " time(s): two workers held one block");
  return results;
}

}  // namespace gyre::rotation
