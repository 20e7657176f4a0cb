// apps/lda/locking_worker.cpp — Harp's locking model for LDA: take any free word block still to do, with its counts, from the lock service.
#include <algorithm>
#include <numeric>
#include <stdexcept>
#include <string>

#include "gyre/base/thread_arena.hpp"
#include "gyre/collective/communicator.hpp"
#include "gyre/locks/lock_client.hpp"
#include "gyre/locks/lock_service.hpp"
#include "gyre/rotation/phase_follower.hpp"
#include "gyre/wire/body.hpp"
#include "lda/allreduce.hpp"

namespace gyre::lda {
namespace {

// A block's counts as the value its lock guards: little-endian 32-bit integers, dense rows.
Buffer value_of(model::Block block) {
  wire::little_in_place(block.values());
  return block.release_storage();
}

// The block a grant carries, checked against this plan's shape before anything indexes into it.
model::Block block_of(const LdaPlan& plan, model::BlockId id, Buffer value) {
  const std::size_t stride = model::padded_width(plan.config.topics);
  const std::size_t rows = id < plan.blocks.rows.size() ? plan.blocks.rows[id].size() : 0;
  if (id >= plan.blocks.rows.size() || value.size() != rows * stride * sizeof(std::int32_t))
    throw std::runtime_error("the lock service sent word block " + std::to_string(id) + " as " +
                             std::to_string(value.size()) + " bytes; the plan here has " +
                             std::to_string(plan.blocks.rows.size()) + " blocks and gives it " +
                             std::to_string(rows * stride * sizeof(std::int32_t)) + " (does every rank have the same corpus?)");
  model::Block block(id, 0, rows, stride, std::move(value));
  wire::little_in_place(block.values());
  return block;
}

}  // namespace

void serve_word_blocks(const LdaPlan& plan, runtime::Mailbox& inbox, std::chrono::milliseconds timeout) {
  std::vector<Buffer> values;
  for (auto& b : starting_blocks(plan)) values.push_back(value_of(std::move(b)));
  locks::LockService(inbox, worker_ranks(plan.config.workers), std::move(values), {timeout, timeout}).run();
}

std::vector<model::Block> run_locking_worker(const LdaPlan& plan, int rank, LdaKernel& kernel, runtime::Mailbox& inbox,
                                             std::chrono::milliseconds timeout, int lock_rank) {
  const int P = plan.config.workers;
  const auto blocks = static_cast<model::BlockId>(plan.blocks.rows.size());
  collective::Communicator workers(inbox, worker_ranks(P), collective::CollectiveOptions{timeout});
  kernel.attach(workers);
  ThreadArena arena(plan.config.threads);
  locks::LockClient locks(inbox, lock_rank, {timeout});
  // Holds the one block `grant` gives, runs `use` on it, hands it back; returns its id.
  const auto with_block = [&](locks::LockGrant grant, const auto& use) {
    locks::LockGuard held(locks, std::move(grant));
    if (!held) throw std::runtime_error("the lock service stopped granting word blocks");
    const auto id = static_cast<model::BlockId>(held.keys().front());
    model::Block block = block_of(plan, id, std::move(held.values().front()));
    arena.execute([&] { use(block); });
    held.values().front() = value_of(std::move(block));
    held.release();
    return id;
  };
  rotation::follow_phases(inbox, P, timeout, [&](std::uint64_t phase, rotation::PhaseKind kind, std::span<const std::byte>) {
    if (kind != rotation::PhaseKind::kTrain) throw std::logic_error("LDA has no evaluation phase");
    const bool initialising = phase == 0 && !plan.config.start;  // a warm start's first phase sweeps
    // Every block once, in whatever order blocks come free: the service grants the first free
    // one of those still to do, in this worker's order (from its own first block, so that
    // workers begin apart), and waits if none is free.
    std::vector<locks::LockKey> todo(blocks);
    for (model::BlockId b = 0; b < blocks; ++b) todo[b] = (b + static_cast<model::BlockId>(rank)) % blocks;
    while (!todo.empty()) {
      const auto id = with_block(locks.acquire_any(todo), [&](model::Block& block) {
        if (initialising) {
          kernel.add_initial_topics(block);
          return;
        }
        // Past the initialising phase a block holds every token of its words, whoever sampled
        // them last: a block that does not came from a rank with another corpus.
        kernel.check_counts(block);
        kernel.sweep(block, 0);
      });
      todo.erase(std::find(todo.begin(), todo.end(), static_cast<locks::LockKey>(id)));
    }
    // A collective: past it every worker has sampled every block, so their counts are final.
    kernel.sync_totals();
    for (model::BlockId b = static_cast<model::BlockId>(rank); b < blocks; b += static_cast<model::BlockId>(P)) {
      const locks::LockKey key = b;
      with_block(locks.acquire(std::span(&key, 1)), [&](model::Block& block) { kernel.add_word_loglik(block); });
    }
    return arena.execute([&] { return kernel.take_phase_sums(kind); });
  });
  std::vector<model::Block> model;
  if (rank == 0) {
    // Every phase is over, so every block is free: a copy of each for the gather.
    auto copies = locks::copy_all_values(locks, blocks, "word blocks");
    for (std::size_t b = 0; b < copies.size(); ++b)
      model.push_back(block_of(plan, static_cast<model::BlockId>(b), std::move(copies[b])));
  }
  locks.finish();
  return model;
}

}  // namespace gyre::lda
