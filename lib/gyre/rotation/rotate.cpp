// gyre/rotation/rotate.cpp — rotate(): blocks from a shape, a rotation run, the blocks gathered to worker 0.
#include "gyre/rotation/rotation_job.hpp"

#include <algorithm>
#include <stdexcept>

#include "gyre/rotation/gather.hpp"

namespace gyre::rotation {

std::vector<model::Block> rotate(const runtime::Job& job, const RotationModel& model,
                                 const std::function<RotationKernel&(int worker)>& kernel,
                                 const PhasePolicy& policy, const RotationOptions& options) {
  if (model.blocks_per_worker < 1) throw std::invalid_argument("a rotation model needs at least one block per worker");
  const RotationSchedule schedule(job.workers, model.blocks_per_worker, model.order, model.seed);
  const std::vector<model::BlockShape> layout(static_cast<std::size_t>(schedule.blocks()), model.shape);
  std::vector<model::Block> blocks;
  run_rotation(
      job, schedule, layout,
      [&](int w) {
        RotationWorker worker{&kernel(w), {}};
        for (const auto id : schedule.held_at_start(w, 0)) {
          worker.initial_blocks.emplace_back(id, model.shape.rows, model.shape.stride);
          if (model.init) model.init(worker.initial_blocks.back());
        }
        return worker;
      },
      policy, options,
      [&](const runtime::Member& member, std::vector<model::OwnedBlock> held) {
        GatherOptions g;
        g.workers = job.workers;
        g.layout = layout;
        g.timeout = options.timeout;
        auto whole = gather_at_root(member.mailbox, held, LocalRows{}, g);
        if (!whole) return;
        blocks = std::move(whole->blocks);
        std::sort(blocks.begin(), blocks.end(), [](const model::Block& a, const model::Block& b) { return a.id() < b.id(); });
      });
  return blocks;
}

PhasePolicy train_phases(std::uint64_t phases, std::function<void(const PhaseResult&)> report) {
  return [phases, report = std::move(report)](const PhaseResult* last) -> std::optional<PhaseKind> {
    if (last != nullptr && report) report(*last);
    if ((last == nullptr ? 0 : last->phase + 1) >= phases) return std::nullopt;
    return PhaseKind::kTrain;
  };
}

}  // namespace gyre::rotation
