// apps/mf/distributed.cpp — run one MF worker per process; every rank writes its part of the model (or rank 0 gathers it).
#include "mf/distributed.hpp"

#include <algorithm>
#include <stdexcept>

#include "gyre/rotation/rotation_job.hpp"
#include "gyre/runtime/parts_output.hpp"
#include "mf/checkpoint.hpp"
#include "mf/model_io.hpp"
#include "mf/shared_models.hpp"

namespace gyre::mf {

std::optional<rotation::GatheredModel> gather_model(const MfPlan& plan, const runtime::Member& member,
                                                    MfKernel& kernel, std::vector<model::OwnedBlock>& held,
                                                    std::chrono::milliseconds timeout) {
  // User rows stay with their worker during training; rank 0 collects them with the blocks,
  // as model rows (no padding), the ratings freed first.
  kernel.drop_ratings();
  rotation::GatherOptions gather;
  gather.workers = plan.config.workers;
  gather.layout = plan.blocks.shapes(plan.layout.stride);
  gather.row_bytes = model_row_floats(plan.config) * sizeof(float);
  gather.id_limit = plan.users;
  gather.timeout = timeout;
  rotation::LocalRows mine;
  {
    const UserRows rows = kernel.user_rows();
    mine = rotation::LocalRows::of(std::span<const std::uint32_t>(rows.ids), std::span<const float>(rows.rows));
  }
  return rotation::gather_at_root(member.mailbox, held, std::move(mine), gather);
}

void write_parts(const MfPlan& plan, const runtime::Member& member, MfKernel& kernel,
                 std::vector<model::OwnedBlock>& held, const PartsTarget& target, std::chrono::milliseconds timeout) {
  kernel.drop_ratings();
  runtime::PartsOutput out{target.directory, model_directory(), plan.config.workers, timeout};
  runtime::write_in_parts(
      member.mailbox, out,
      [&](const std::filesystem::path& staging) {
        // Written from the kernel's rows and the blocks as they are: no copy of the part is made.
        std::vector<std::pair<std::uint32_t, const float*>> rows;
        const auto side = [&](std::size_t tail, const std::vector<std::uint32_t>& originals) {
          std::sort(rows.begin(), rows.end());
          PartSide sorted;
          sorted.tail = tail;
          for (const auto& [dense, row] : rows) {
            sorted.ids.push_back(originals.at(dense));
            sorted.rows.push_back(row);
          }
          rows = {};
          return sorted;
        };
        const auto user_rows = kernel.user_rows_view();
        const auto& user_ids = kernel.users().global_ids;
        for (std::size_t r = 0; r < user_ids.size(); ++r) rows.emplace_back(user_ids[r], user_rows.data() + r * plan.layout.stride);
        const PartSide users = side(plan.layout.width, target.ids->users.original);
        for (auto& b : held)
          for (std::size_t row = 0; row < b->rows(); ++row) rows.emplace_back(plan.blocks.rows[b->id()][row], b->row(row));
        const PartSide items = side(plan.layout.width, target.ids->items.original);
        return write_model_part(staging, member.rank, model_header(plan), users, items);
      },
      [&](const std::filesystem::path& staging, const std::vector<std::string>& parts) {
        write_parts_manifest(staging, model_header(plan), parts);
      });
}

MfModel assemble_gathered(const MfPlan& plan, const rotation::GatheredModel& parts) {
  std::vector<UserRows> users;
  for (const auto& r : parts.rows) users.push_back({r.ids_as<std::uint32_t>(), r.values_as<float>()});
  std::vector<const model::Block*> all;
  for (const auto& b : parts.blocks) all.push_back(&b);
  return assemble_model(plan, users, all);
}

std::optional<MfModel> train_distributed(const MfConfig& config, std::vector<data::RatingsSet> train_shards,
                                         const data::RatingsStats& train, data::RatingsSet test, const TrainHooks& hooks,
                                         const rotation::ClusterJobOptions& cluster) {
  if (config.workers != cluster.launch.size) throw std::invalid_argument("one worker per process");
  if (config.model != ComputationModel::kRotation)
    return train_shared_models(config, std::move(train_shards), train, std::move(test), hooks, rotation::processes_backend(cluster),
                               cluster.timeout);
  const int rank = cluster.launch.rank;
  MfPlan plan = plan_job(config, train, test);
  test = {};  // split into the plan's test shards
  const auto at = static_cast<std::size_t>(rank);
  auto kernel = make_kernel(plan, std::move(train_shards[at]), std::move(plan.test_shards[at]));
  train_shards.clear();
  plan.test_shards.clear();

  // Item blocks arriving from peers are checked against this rank's plan: a rank with other
  // data or --biases would send blocks of another shape.
  std::optional<rotation::GatheredModel> parts;
  EpochControl control = epoch_control(plan, hooks.on_epoch);
  auto& policy = control.policy;
  auto options = rotation::rotation_options(cluster, config.threads, config.depth);
  options.phase_payload = std::move(control.payload);
  take_checkpoints(plan, hooks.checkpoints, policy, options, [&](int) -> const MfKernel& { return *kernel; });
  rotation::run_rotation(
      rotation::rotation_job(config.workers, rotation::processes_backend(cluster)), *plan.schedule,
      plan.blocks.shapes(plan.layout.stride),
      [&](int) { return rotation::RotationWorker{kernel.get(), initial_blocks(plan, rank)}; }, policy, options,
      [&](const runtime::Member& m, std::vector<model::OwnedBlock> held) {
        if (hooks.on_traffic) hooks.on_traffic(m.group.bytes_sent());
        if (hooks.parts)
          write_parts(plan, m, *kernel, held, *hooks.parts, cluster.timeout);
        else if (!hooks.discard_model)
          parts = gather_model(plan, m, *kernel, held, cluster.timeout);
      });
  if (!parts) return std::nullopt;
  return assemble_gathered(plan, *parts);
}

}  // namespace gyre::mf
