// apps/mf/shared_models.cpp — threads, groups and reports for MF under the locking, allreduce and no-sync models.
#include "mf/shared_models.hpp"

#include <oneapi/tbb/task_arena.h>

#include <map>
#include <mutex>
#include <numeric>
#include <stdexcept>

#include "gyre/runtime/job.hpp"
#include "gyre/scheduler/lock_service.hpp"
#include "gyre/scheduler/rotation_driver.hpp"
#include "mf/item_replica.hpp"
#include "mf/model_workers.hpp"

namespace gyre::mf {
namespace {

// The no-sync model has no driver: workers hand in each phase's sums as they finish it, and
// once every worker has, the board passes the phase to the epoch policy as the driver would.
// A phase's seconds run from the previous phase's completion, so train seconds add up to the
// wall time minus the evaluations (as the rotation reports them).
class PhaseBoard {
 public:
  PhaseBoard(int workers, scheduler::PhasePolicy policy)
      : workers_(workers), policy_(std::move(policy)), last_done_(net::Clock::now()) {
    policy_(nullptr);
  }

  void post(int worker, std::uint64_t phase, scheduler::PhaseKind kind, const scheduler::PhaseSums& sums) {
    std::lock_guard lock(mutex_);
    auto& p = pending_[phase];
    p.kind = kind;
    p.by_worker.resize(static_cast<std::size_t>(workers_));
    p.by_worker[static_cast<std::size_t>(worker)] = sums;
    ++p.posted;
    for (auto it = pending_.find(next_); it != pending_.end() && it->second.posted == workers_; it = pending_.find(next_)) {
      scheduler::PhaseResult r;
      r.phase = next_;
      r.kind = it->second.kind;
      for (const auto& s : it->second.by_worker)  // in rank order: reproducible sums
        for (std::size_t i = 0; i < s.size(); ++i) r.sums[i] += s[i];
      const auto now = net::Clock::now();
      r.seconds = std::chrono::duration<double>(now - last_done_).count();
      last_done_ = now;
      policy_(&r);
      pending_.erase(it);
      ++next_;
    }
  }

 private:
  struct Pending {
    scheduler::PhaseKind kind{};
    std::vector<scheduler::PhaseSums> by_worker;
    int posted = 0;
  };
  std::mutex mutex_;
  int workers_;
  scheduler::PhasePolicy policy_;
  net::Clock::time_point last_done_;
  std::map<std::uint64_t, Pending> pending_;
  std::uint64_t next_ = 0;
};

// The no-sync replicas end apart; the model is their mean.
std::vector<model::Block> mean_of(std::vector<std::vector<model::Block>>& replicas) {
  auto mean = copy_blocks(replicas.front());
  const auto n = static_cast<float>(replicas.size());
  for (std::size_t b = 0; b < mean.size(); ++b) {
    auto out = mean[b].values();
    for (std::size_t r = 1; r < replicas.size(); ++r) {
      const auto in = replicas[r][b].values();
      for (std::size_t i = 0; i < out.size(); ++i) out[i] += in[i];
    }
    for (auto& x : out) x /= n;
  }
  return mean;
}

}  // namespace

MfModel train_shared_models(const MfConfig& config, std::vector<data::RatingsSet> train_shards,
                            const data::RatingsSet& test, const TrainHooks& hooks) {
  if (config.model == ComputationModel::kRotation) throw std::invalid_argument("train_shared_models: rotation is train_embedded's");
  MfPlan plan = plan_job(config, train_shards, test);
  const int P = config.workers;
  const auto model = config.model;
  const bool driven = model != ComputationModel::kNoSync;
  const int lock_rank = P + 1;
  std::vector<std::unique_ptr<MfKernel>> kernels;
  for (int w = 0; w < P; ++w) {
    kernels.push_back(make_kernel(plan, w, train_shards[static_cast<std::size_t>(w)]));
    train_shards[static_cast<std::size_t>(w)] = {};
  }
  // Locking: one copy that every worker writes under the service's locks. Otherwise a replica each.
  std::vector<std::vector<model::Block>> copies;
  copies.push_back(all_item_blocks(plan));
  if (model != ComputationModel::kLocking)
    for (int w = 1; w < P; ++w) copies.push_back(copy_blocks(copies.front()));
  const auto blocks = static_cast<std::uint32_t>(plan.schedule->blocks());

  runtime::Job job;
  job.workers = P;
  if (driven) job.roles.push_back("the scheduler");
  if (model == ComputationModel::kLocking) job.roles.push_back("the lock service");
  std::optional<PhaseBoard> board;
  if (!driven) board.emplace(P, epoch_policy(plan, hooks.on_epoch));
  const auto timeout = hooks.job.timeout;
  runtime::run(job, [&](const runtime::Member& m) {
    const int rank = m.rank;
    if (rank == P) {  // the driver (locking, allreduce)
      scheduler::RotationDriver driver(m.mailbox, worker_ranks(P), timeout);
      driver.run(epoch_policy(plan, hooks.on_epoch));
      return;
    }
    if (rank == lock_rank) {
      scheduler::LockService service(m.mailbox, worker_ranks(P), blocks, {timeout, timeout});
      service.run();
      return;
    }
    oneapi::tbb::task_arena arena(std::max(1, config.threads));
    ModelWorker mw{plan, rank, *kernels[static_cast<std::size_t>(rank)], arena, m.mailbox, timeout};
    auto& mine = copies[model == ComputationModel::kLocking ? 0 : static_cast<std::size_t>(rank)];
    switch (model) {
      case ComputationModel::kLocking: run_locking_worker(mw, mine, lock_rank); break;
      case ComputationModel::kAllreduce: run_allreduce_worker(mw, mine); break;
      case ComputationModel::kNoSync:
        run_nosync_worker(mw, mine, [&, rank](std::uint64_t phase, scheduler::PhaseKind kind, const scheduler::PhaseSums& s) {
          board->post(rank, phase, kind, s);
        });
        break;
      case ComputationModel::kRotation: break;
    }
  });

  const auto final_blocks = model == ComputationModel::kNoSync ? mean_of(copies) : std::move(copies.front());
  std::vector<UserRows> users;
  for (const auto& k : kernels) users.push_back(k->user_rows());
  std::vector<const model::Block*> pointers;
  for (const auto& b : final_blocks) pointers.push_back(&b);
  return assemble_model(plan, users, pointers);
}

}  // namespace gyre::mf
