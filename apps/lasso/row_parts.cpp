// apps/lasso/row_parts.cpp — dealing a shard's rows into parts, building their columns, running one task per part.
#include "lasso/row_parts.hpp"

#include <algorithm>

#include <oneapi/tbb/parallel_for.h>

#include "gyre/base/thread_arena.hpp"
#include "gyre/data/regression_partition.hpp"

namespace gyre::lasso {

struct RowParts::Arena {
  explicit Arena(int threads) : arena(threads) {}
  ThreadArena arena;
};

RowParts::RowParts(const data::RegressionSet& rows, int parts, int threads)
    : samples_(rows.samples()),
      features_(rows.features),
      threads_(std::max({1, parts, threads})),
      dealt_(data::deal_rows(rows, static_cast<std::uint32_t>(std::max(1, parts)))),
      columns_(dealt_.size()),
      part_sums_(dealt_.size()),
      arena_(std::make_unique<Arena>(threads_)) {
  // Each part's copy on the threads the parts leave (all T for a worker that keeps one part).
  const auto copy_threads = static_cast<std::size_t>(std::max<int>(1, threads_ / static_cast<int>(dealt_.size())));
  arena_->arena.execute(
      [&] { for_each([&](std::size_t p) { columns_[p] = data::to_columns(rows, dealt_[p], copy_threads); }); });
}

RowParts::~RowParts() = default;

void RowParts::for_each(const std::function<void(std::size_t)>& body) {
  if (columns_.size() == 1) {
    body(0);
    return;
  }
  arena_->arena.execute([&] {
    tbb::parallel_for(std::size_t{0}, columns_.size(), [&](std::size_t p) { body(p); }, tbb::simple_partitioner());
  });
}

void RowParts::run_blocks(std::size_t count, const std::function<void(std::size_t, std::size_t, std::size_t)>& body) {
  const auto blocks = static_cast<std::size_t>(threads_);
  if (blocks == 1 || count < blocks) {
    body(0, 0, count);
    return;
  }
  arena_->arena.execute([&] {
    tbb::parallel_for(
        std::size_t{0}, blocks, [&](std::size_t b) { body(b, count * b / blocks, count * (b + 1) / blocks); },
        tbb::simple_partitioner());
  });
}

void RowParts::for_each_block(std::size_t count, const std::function<void(std::size_t, std::size_t)>& body) {
  run_blocks(count, [&](std::size_t, std::size_t begin, std::size_t end) { body(begin, end); });
}

double RowParts::sum_blocks(std::size_t count, const std::function<double(std::size_t, std::size_t)>& block_sum) {
  std::vector<double> sums(static_cast<std::size_t>(threads_), 0.0);
  run_blocks(count, [&](std::size_t b, std::size_t begin, std::size_t end) { sums[b] = block_sum(begin, end); });
  double total = sums[0];
  for (std::size_t b = 1; b < sums.size(); ++b) total += sums[b];
  return total;
}

void RowParts::add_part_sums(std::span<double> out) const {
  std::fill(out.begin(), out.end(), 0.0);
  for (const auto& part : part_sums_)
    for (std::size_t k = 0; k < out.size(); ++k) out[k] += part[k];
}

}  // namespace gyre::lasso
