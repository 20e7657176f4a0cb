// apps/mf/allreduce_worker.cpp — Harp's allreduce model for MF: train a share of the blocks on a replica, sum the changes.
#include <numeric>

#include "gyre/collective/communicator.hpp"
#include "gyre/pipeline/phase_follower.hpp"
#include "mf/item_replica.hpp"
#include "mf/model_workers.hpp"

namespace gyre::mf {

void run_allreduce_worker(ModelWorker& w, std::vector<model::Block>& replica) {
  collective::Communicator workers(w.inbox, w.worker_ranks(), collective::CollectiveOptions{w.timeout});
  const auto blocks = static_cast<int>(replica.size());
  const int rounds = std::clamp(w.plan.config.sync_rounds, 1, blocks);
  pipeline::follow_phases(w.inbox, w.driver_rank(), w.timeout, [&](std::uint64_t, scheduler::PhaseKind kind) {
    if (kind == scheduler::PhaseKind::kEvaluate) {
      for (const auto& b : replica) w.evaluate(b);
      return w.kernel.take_phase_sums(kind);
    }
    for (int r = 0; r < rounds; ++r) {
      std::vector<model::BlockId> ids;
      for (int b = r; b < blocks; b += rounds) ids.push_back(static_cast<model::BlockId>(b));
      const auto before = gather_values(replica, ids);
      for (auto id : ids) w.train(replica[id]);
      // Every worker trained the same blocks on its own users: the sum of the changes is what
      // one worker would have reached seeing all those ratings, up to the staleness within a round.
      auto change = gather_values(replica, ids);
      for (std::size_t i = 0; i < change.size(); ++i) change[i] -= before[i];
      workers.allreduce_sum(std::span<float>(change));
      for (std::size_t i = 0; i < change.size(); ++i) change[i] += before[i];
      scatter_values(change, replica, ids);
    }
    return w.kernel.take_phase_sums(kind);
  });
}

}  // namespace gyre::mf
