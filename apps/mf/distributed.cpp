// apps/mf/distributed.cpp — run one MF worker per process and gather the model on rank 0.
#include "mf/distributed.hpp"

#include <stdexcept>

#include "gyre/pipeline/gather.hpp"
#include "gyre/pipeline/rotation_job.hpp"

namespace gyre::mf {

std::optional<MfModel> train_distributed(const MfConfig& config, std::vector<data::RatingsSet> train_shards,
                                         const data::RatingsSet& test, const TrainHooks& hooks,
                                         const pipeline::ClusterJobOptions& cluster) {
  if (config.workers != cluster.launch.size) throw std::invalid_argument("one worker per process");
  const int rank = cluster.launch.rank;
  MfPlan plan = plan_job(config, train_shards, test);
  auto kernel = make_kernel(plan, rank, train_shards[static_cast<std::size_t>(rank)]);
  train_shards.clear();
  plan.test_shards.clear();

  // Item blocks arriving from peers are checked against this rank's plan: a rank with other
  // data or --biases would send blocks of another shape.
  const auto layout = plan.blocks.shapes(plan.layout.stride);
  const std::size_t stride = plan.layout.stride;
  std::optional<pipeline::GatheredModel> parts;
  pipeline::run_rotation(
      pipeline::rotation_job(config.workers, pipeline::processes_backend(cluster)), *plan.schedule, layout,
      [&](int) { return pipeline::RotationWorker{kernel.get(), initial_blocks(plan, rank)}; },
      epoch_policy(plan, hooks.on_epoch), pipeline::rotation_options(cluster, config.threads),
      [&](const runtime::Member& m, std::vector<model::OwnedBlock> held) {
        if (hooks.on_traffic) hooks.on_traffic(m.group.bytes_sent());
        // User rows stay with their worker during the rotation; rank 0 collects them with the blocks.
        const UserRows mine = kernel->user_rows();
        pipeline::GatherOptions gather;
        gather.workers = config.workers;
        gather.layout = layout;
        gather.row_bytes = stride * sizeof(float);
        gather.id_limit = plan.users;
        gather.timeout = cluster.timeout;
        parts = pipeline::gather_at_root(
            m.mailbox, held,
            pipeline::LocalRows::of(std::span<const std::uint32_t>(mine.ids), std::span<const float>(mine.rows)), gather);
      });
  if (!parts) return std::nullopt;
  std::vector<UserRows> users;
  for (const auto& r : parts->rows) users.push_back({r.ids_as<std::uint32_t>(), r.values_as<float>()});
  std::vector<const model::Block*> all;
  for (const auto& b : parts->blocks) all.push_back(&b);
  return assemble_model(plan, users, all);
}

}  // namespace gyre::mf
