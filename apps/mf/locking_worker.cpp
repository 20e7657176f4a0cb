// apps/mf/locking_worker.cpp — Harp's locking model for MF: take any free block still to do, train it in the one shared copy.
#include <algorithm>
#include <stdexcept>

#include "gyre/pipeline/phase_follower.hpp"
#include "gyre/scheduler/lock_client.hpp"
#include "mf/model_workers.hpp"

namespace gyre::mf {

void run_locking_worker(ModelWorker& w, std::vector<model::Block>& shared, int lock_rank) {
  scheduler::LockClient locks(w.inbox, lock_rank, {w.timeout});
  pipeline::follow_phases(w.inbox, w.driver_rank(), w.timeout, [&](std::uint64_t, scheduler::PhaseKind kind) {
    // Evaluation only reads, and phases are barriers: no writer runs meanwhile, no locks needed.
    if (kind == scheduler::PhaseKind::kEvaluate) {
      for (const auto& b : shared) w.evaluate(b);
      return w.kernel.take_phase_sums(kind);
    }
    // Every block once per epoch, in whatever order blocks come free: the service grants the
    // first free one of those still to do, in this worker's order, and waits if none is free.
    auto todo = w.block_order();
    while (!todo.empty()) {
      scheduler::LockGuard held(locks, locks.acquire_any(todo));
      if (!held) throw std::runtime_error("the lock service stopped granting blocks");
      const auto id = held.keys().front();
      w.train(shared[id]);
      held.release();
      todo.erase(std::find(todo.begin(), todo.end(), id));
    }
    return w.kernel.take_phase_sums(kind);
  });
  locks.finish();
}

}  // namespace gyre::mf
