// apps/mf/locking_worker.cpp — Harp's locking model for MF: take any free block still to do, with its value, from the lock service.
#include <algorithm>
#include <numeric>
#include <stdexcept>

#include "gyre/locks/lock_client.hpp"
#include "gyre/rotation/phase_follower.hpp"
#include "mf/item_replica.hpp"
#include "mf/model_workers.hpp"

namespace gyre::mf {

std::vector<model::Block> run_locking_worker(ModelWorker& w, int lock_rank) {
  locks::LockClient locks(w.inbox, lock_rank, {w.timeout});
  const std::string service = "the lock service (rank " + std::to_string(lock_rank) + ")";
  rotation::follow_phases(w.inbox, w.driver_rank(), w.timeout, [&](std::uint64_t phase, rotation::PhaseKind kind, std::span<const std::byte> payload) {
    w.kernel.start_phase(phase, kind, payload);
    // Every block once per phase, in whatever order blocks come free: the service grants the
    // first free one of those still to do, in this worker's order, and waits if none is free.
    // Evaluation only reads, but the blocks are where their locks are, so it takes them too.
    auto todo = w.block_order();
    while (!todo.empty()) {
      locks::LockGuard held(locks, locks.acquire_any(todo));
      if (!held) throw std::runtime_error("the lock service stopped granting blocks");
      const auto id = held.keys().front();
      auto block = block_of(w.plan, id, std::move(held.values().front()), service);
      if (kind == rotation::PhaseKind::kEvaluate)
        w.evaluate(block);
      else
        w.train(block);
      held.values().front() = value_of(std::move(block));
      held.release();
      todo.erase(std::find(todo.begin(), todo.end(), id));
    }
    return w.kernel.take_phase_sums(kind);
  });
  std::vector<model::Block> model;
  if (w.rank == 0) {
    // Every phase is over, so every block is free: a copy of each for the gather.
    auto copies = locks::copy_all_values(locks, static_cast<std::size_t>(w.plan.schedule->blocks()), "item blocks");
    for (std::size_t b = 0; b < copies.size(); ++b)
      model.push_back(block_of(w.plan, static_cast<locks::LockKey>(b), std::move(copies[b]), service));
  }
  locks.finish();
  return model;
}

}  // namespace gyre::mf
