// apps/mf/shared_models.cpp — the members of an MF job under the locking, allreduce and no-sync models, and the model they leave.
#include "mf/shared_models.hpp"


#include <stdexcept>

#include "gyre/base/thread_arena.hpp"
#include "gyre/locks/lock_service.hpp"
#include "gyre/rotation/phase_tally.hpp"
#include "gyre/rotation/rotation_driver.hpp"
#include "mf/checkpoint.hpp"
#include "mf/distributed.hpp"
#include "mf/item_replica.hpp"
#include "mf/model_workers.hpp"

namespace gyre::mf {

std::optional<MfModel> train_shared_models(const MfConfig& config, std::vector<data::RatingsSet> train_shards,
                                           const data::RatingsStats& train, data::RatingsSet test, const TrainHooks& hooks,
                                           runtime::Backend backend, std::chrono::milliseconds timeout) {
  if (config.model == ComputationModel::kRotation) throw std::invalid_argument("train_shared_models: rotation is train_embedded's");
  const MfPlan plan = plan_job(config, train, test);
  test = {};  // split into the plan's test shards
  const int P = config.workers;
  const auto model = config.model;
  runtime::Job job;
  job.workers = P;
  job.backend = std::move(backend);
  job.roles.push_back("the scheduler");
  if (model == ComputationModel::kLocking) job.roles.push_back("the lock service");
  const int lock_rank = P + 1;

  // Checkpoints (the allreduce model only: the others depend on timing): each worker's part as a
  // training phase ends, worker 0's with the whole replica; the manifest from the driver's policy.
  EpochControl control = epoch_control(plan, hooks.on_epoch);  // not a structured binding: lambdas below use it
  auto& policy = control.policy;
  const auto& payload = control.payload;
  rotation::RotationOptions checkpointing;  // only its at_phase_end is used
  std::vector<const MfKernel*> kernels(static_cast<std::size_t>(P), nullptr);
  if (hooks.checkpoints.store) {
    if (model != ComputationModel::kAllreduce)
      throw std::invalid_argument("checkpoints: the locking and no-sync models depend on timing and take none");
    take_checkpoints(plan, hooks.checkpoints, policy, checkpointing,
                     [&](int w) -> const MfKernel& { return *kernels[static_cast<std::size_t>(w)]; });
  }
  std::optional<rotation::GatheredModel> gathered;
  runtime::run(job, [&](const runtime::Member& m) {
    const int rank = m.rank;
    if (rank == P) {
      if (model == ComputationModel::kNoSync)
        rotation::PhaseTally(m.mailbox, worker_ranks(P), timeout).run(policy);
      else
        rotation::RotationDriver(m.mailbox, worker_ranks(P), timeout).run(policy, payload);
      return;
    }
    if (rank == lock_rank) {
      locks::LockService service(m.mailbox, worker_ranks(P), block_values(all_item_blocks(plan)), {timeout, timeout});
      service.run();
      return;
    }
    auto& shard = train_shards[static_cast<std::size_t>(rank)];
    const auto kernel = make_kernel(plan, std::move(shard), plan.test_shards[static_cast<std::size_t>(rank)]);
    ThreadArena arena(config.threads);
    kernels[static_cast<std::size_t>(rank)] = kernel.get();
    ModelWorker worker{plan, rank, *kernel, arena, m.mailbox, timeout, checkpointing.at_phase_end};
    // What this worker hands to the gather: worker 0 the whole item model, the others nothing
    // (the replicas are equal, or averaged into one, by then; locking's blocks are the service's).
    std::vector<model::Block> blocks;
    switch (model) {
      case ComputationModel::kLocking: blocks = run_locking_worker(worker, lock_rank); break;
      case ComputationModel::kAllreduce:
        blocks = all_item_blocks(plan);
        run_allreduce_worker(worker, blocks);
        break;
      case ComputationModel::kNoSync:
        blocks = all_item_blocks(plan);
        run_nosync_worker(worker, blocks);
        break;
      case ComputationModel::kRotation: break;
    }
    if (hooks.on_traffic) hooks.on_traffic(m.group.bytes_sent());
    std::vector<model::OwnedBlock> held;
    if (rank == 0)
      for (auto& b : blocks) held.emplace_back(std::move(b), nullptr);
    if (hooks.parts)
      write_parts(plan, m, *kernel, held, *hooks.parts, timeout);
    else if (hooks.discard_model)
      return;
    else if (auto parts = gather_model(plan, m, *kernel, held, timeout))
      gathered = std::move(parts);
  });
  if (!gathered) return std::nullopt;
  return assemble_gathered(plan, *gathered);
}

}  // namespace gyre::mf
