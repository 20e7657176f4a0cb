// apps/mf/allreduce_worker.cpp — Harp's allreduce model for MF: train every block on a replica, apply the workers' mean change.
#include <numeric>
#include <stdexcept>
#include <string>

#include "gyre/collective/communicator.hpp"
#include "gyre/collective/partition_collectives.hpp"
#include "gyre/rotation/phase_follower.hpp"
#include "mf/item_replica.hpp"
#include "mf/model_workers.hpp"

namespace gyre::mf {
namespace {

// Sums every worker's change to every block, in place, with the chosen collective.
void sum_changes(collective::Communicator& workers, ChangeCollective how, std::vector<model::Block>& changes) {
  if (how == ChangeCollective::kRing) {
    std::vector<model::BlockId> all(changes.size());
    std::iota(all.begin(), all.end(), model::BlockId{0});
    auto flat = gather_values(changes, all);
    workers.allreduce_sum(std::span<float>(flat));
    scatter_values(flat, changes, all);
    return;
  }
  // One partition per block: block b is summed on its owner, worker b mod P.
  collective::PartitionTable<float> mine;
  for (const auto& b : changes) mine.parts[b.id()].assign(b.data(), b.data() + b.rows() * b.stride());
  if (how == ChangeCollective::kRegroup) {
    collective::regroup(workers, mine);
    collective::allgather(workers, mine);
  } else {
    collective::PartitionTable<float> owned;  // the sums, on their owners
    collective::push(workers, mine, owned);
    collective::pull(workers, owned, mine);
  }
  // The sums came from their owners (the default partitioner: block b on worker b mod P): a
  // worker with another plan would send one of another length, or none.
  for (auto& b : changes) {
    const auto sum = mine.parts.find(b.id());
    const auto want = b.values().size();
    if (sum == mine.parts.end() || sum->second.size() != want) {
      const int owner = workers.member(static_cast<int>(b.id() % static_cast<model::BlockId>(workers.size())));
      const std::string got = sum == mine.parts.end() ? "no" : std::to_string(sum->second.size());
      throw std::runtime_error("the summed change of block " + std::to_string(b.id()) + " from rank " +
                               std::to_string(owner) + " has " + got + " floats; the plan here has " +
                               std::to_string(want));
    }
    std::copy(sum->second.begin(), sum->second.end(), b.values().begin());
  }
}

}  // namespace

void run_allreduce_worker(ModelWorker& w, std::vector<model::Block>& replica) {
  collective::Communicator workers(w.inbox, w.worker_ranks(), collective::CollectiveOptions{w.timeout});
  rotation::follow_phases(w.inbox, w.driver_rank(), w.timeout, [&](std::uint64_t phase, rotation::PhaseKind kind, std::span<const std::byte> payload) {
    w.kernel.start_phase(phase, kind, payload);
    if (kind == rotation::PhaseKind::kEvaluate) {
      for (const auto& b : replica) w.evaluate(b);
      return w.kernel.take_phase_sums(kind);
    }
    const auto start = copy_blocks(replica);
    for (auto id : w.block_order()) w.train(replica[id]);
    auto changes = copy_blocks(replica);
    for (std::size_t b = 0; b < replica.size(); ++b) {
      auto change = changes[b].values();
      const auto from = start[b].data();
      for (std::size_t i = 0; i < change.size(); ++i) change[i] -= from[i];
    }
    sum_changes(workers, w.plan.config.collective, changes);
    // Each worker saw its own users' ratings of every item. The mean change is applied: the sum
    // overshoots (each change is already many SGD steps on the item rows, each with its own
    // regularisation shrink) and diverged at the default learning rate.
    const float share = 1.0f / static_cast<float>(w.workers());
    for (std::size_t b = 0; b < replica.size(); ++b) {
      auto out = replica[b].values();
      const auto from = start[b].data();
      const auto sum = changes[b].data();
      for (std::size_t i = 0; i < out.size(); ++i) out[i] = from[i] + sum[i] * share;
    }
    if (w.at_phase_end) {
      std::vector<const model::Block*> handed;  // the replicas are equal: worker 0's stands for all
      if (w.rank == 0)
        for (const auto& b : replica) handed.push_back(&b);
      w.at_phase_end(w.rank, phase, kind, handed);
    }
    return w.kernel.take_phase_sums(kind);
  });
}

}  // namespace gyre::mf
