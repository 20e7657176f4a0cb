// apps/mf/model_worker.cpp — what the locking, allreduce and no-sync workers share: rank lists, block order, kernel calls.
#include <numeric>

#include "mf/model_workers.hpp"

namespace gyre::mf {

std::vector<int> worker_ranks(int workers) {
  std::vector<int> r(static_cast<std::size_t>(workers));
  std::iota(r.begin(), r.end(), 0);
  return r;
}

std::vector<model::BlockId> ModelWorker::block_order() const {
  const auto blocks = static_cast<model::BlockId>(plan.schedule->blocks());
  const auto first = static_cast<model::BlockId>(rank * plan.schedule->blocks_per_worker()) % blocks;
  std::vector<model::BlockId> order(blocks);
  for (model::BlockId i = 0; i < blocks; ++i) order[i] = (first + i) % blocks;
  return order;
}

void ModelWorker::train(model::Block& block) {
  arena.execute([&] { kernel.train(block, rotation::Visit{}); });
}

void ModelWorker::evaluate(const model::Block& block) {
  arena.execute([&] { kernel.evaluate(block, rotation::Visit{}); });
}

}  // namespace gyre::mf
