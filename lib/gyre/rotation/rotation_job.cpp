// gyre/rotation/rotation_job.cpp — each member's part of a rotation job: a worker's engine, or the scheduler's driver.
#include "gyre/rotation/rotation_job.hpp"

#include <numeric>
#include <stdexcept>

#include "gyre/rotation/rotation_driver.hpp"
#include "gyre/rotation/worker_engine.hpp"

namespace gyre::rotation {

runtime::Job rotation_job(int workers, runtime::Backend backend) {
  return runtime::Job{workers, {"the scheduler"}, std::move(backend), {}, {}};
}

void run_rotation(const runtime::Job& job, const RotationSchedule& schedule,
                  const std::vector<model::BlockShape>& layout, const std::function<RotationWorker(int rank)>& worker,
                  const PhasePolicy& policy, const RotationOptions& options, const AfterRotation& after) {
  const int P = schedule.workers();
  if (job.workers != P || job.roles.size() != 1)
    throw std::invalid_argument("a rotation job has the schedule's workers and one scheduler");
  if (static_cast<int>(layout.size()) != schedule.blocks())
    throw std::invalid_argument("the layout must give every block of the schedule its shape");
  runtime::run(job, [&](const runtime::Member& m) {
    if (m.rank == P) {
      std::vector<int> workers(static_cast<std::size_t>(P));
      std::iota(workers.begin(), workers.end(), 0);
      RotationDriver(m.mailbox, workers, options.timeout).run(policy, options.phase_payload);
      return;
    }
    RotationWorker w = worker(m.rank);
    WorkerOptions wo;
    wo.threads = options.threads_per_worker;
    wo.scheduler_rank = P;
    wo.depth = options.depth;
    wo.timeout = options.timeout;
    wo.visit_deadline = options.visit_deadline;
    wo.registry = options.registry;
    if (options.on_visit) wo.on_visit = [&, rank = m.rank](const Visit& v) { options.on_visit(rank, v); };
    if (options.at_phase_end)
      wo.at_phase_end = [&, rank = m.rank](std::uint64_t phase, PhaseKind kind,
                                           std::span<const model::Block* const> held) {
        options.at_phase_end(rank, phase, kind, held);
      };
    auto held = WorkerEngine(m.mailbox, schedule, layout, *w.kernel, std::move(wo)).run(std::move(w.initial_blocks));
    if (after) after(m, std::move(held));
  });
}

}  // namespace gyre::rotation
