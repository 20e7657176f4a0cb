// apps/lasso/residual_shard.cpp — residual updates and partial sums over a worker's rows, one task per part.
#include "lasso/residual_shard.hpp"

#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/task_arena.h>

#include "gyre/data/regression_partition.hpp"

namespace gyre::lasso {

struct ResidualShard::Part {
  data::ColumnMatrix columns;
  std::vector<double> y;         // y − y_offset
  std::vector<double> residual;
  std::vector<double> scratch;   // this part's partial sums
};

struct ResidualShard::Arena {
  explicit Arena(int threads) : arena(threads) {}
  tbb::task_arena arena;
};

ResidualShard::ResidualShard(const data::RegressionSet& rows, double y_offset, int threads)
    : samples_(rows.samples()), features_(rows.features), arena_(std::make_unique<Arena>(std::max(1, threads))) {
  // The parts are built straight from the rows (no copy of them), in parallel.
  const auto dealt = data::deal_rows(rows, static_cast<std::uint32_t>(std::max(1, threads)));
  for (std::size_t p = 0; p < dealt.size(); ++p) parts_.push_back(std::make_unique<Part>());
  for_each_part([&](Part& part, std::size_t p) {
    part.columns = data::to_columns(rows, dealt[p]);
    part.y.resize(dealt[p].size());
    for (std::size_t r = 0; r < dealt[p].size(); ++r) part.y[r] = rows.y[dealt[p][r]] - y_offset;
    part.residual = part.y;
  });
}

ResidualShard::~ResidualShard() = default;

template <class Body>
void ResidualShard::for_each_part(Body&& body) {
  if (parts_.size() == 1) {
    body(*parts_[0], std::size_t{0});
    return;
  }
  arena_->arena.execute([&] {
    tbb::parallel_for(std::size_t{0}, parts_.size(), [&](std::size_t p) { body(*parts_[p], p); },
                      tbb::simple_partitioner());
  });
}

void ResidualShard::apply(std::span<const scheduler::Step> steps) {
  if (steps.empty()) return;
  for_each_part([&](Part& part, std::size_t) {
    const auto& c = part.columns;
    for (const scheduler::Step& s : steps) {
      for (std::uint64_t e = c.col_begin[s.param]; e < c.col_begin[s.param + 1]; ++e)
        part.residual[c.rows[e]] -= c.values[e] * s.delta;
    }
  });
}

void ResidualShard::partial_gradients(std::span<const std::uint32_t> features, std::span<double> out) {
  for_each_part([&](Part& part, std::size_t) {
    const auto& c = part.columns;
    part.scratch.resize(features.size());
    for (std::size_t f = 0; f < features.size(); ++f) {
      const std::uint32_t j = features[f];
      double sum = 0;
      for (std::uint64_t e = c.col_begin[j]; e < c.col_begin[j + 1]; ++e) sum += c.values[e] * part.residual[c.rows[e]];
      part.scratch[f] = sum;
    }
  });
  std::fill(out.begin(), out.end(), 0.0);
  for (const auto& part : parts_)
    for (std::size_t f = 0; f < features.size(); ++f) out[f] += part->scratch[f];
}

ShardCheck ResidualShard::check(double residual_mean) {
  std::vector<ShardCheck> per_part(parts_.size());
  for_each_part([&](Part& part, std::size_t index) {
    ShardCheck& out = per_part[index];
    const auto& c = part.columns;
    out.raw_gradient.assign(features_, 0.0);
    for (std::uint32_t j = 0; j < features_; ++j) {
      double sum = 0;
      for (std::uint64_t e = c.col_begin[j]; e < c.col_begin[j + 1]; ++e) sum += c.values[e] * part.residual[c.rows[e]];
      out.raw_gradient[j] = sum;
    }
    for (std::size_t i = 0; i < part.residual.size(); ++i) {
      const double centred = part.residual[i] - residual_mean;
      out.centred_rss += centred * centred;
      out.centred_dot_y += centred * part.y[i];
    }
  });
  ShardCheck total = std::move(per_part[0]);
  for (std::size_t p = 1; p < per_part.size(); ++p) {
    for (std::uint32_t j = 0; j < features_; ++j) total.raw_gradient[j] += per_part[p].raw_gradient[j];
    total.centred_rss += per_part[p].centred_rss;
    total.centred_dot_y += per_part[p].centred_dot_y;
  }
  return total;
}

std::vector<double> ResidualShard::push(const scheduler::Task& task) {
  if (static_cast<RoundKind>(task.kind) == RoundKind::kPartials) {
    std::vector<double> sums(task.params.size());
    partial_gradients(task.params, sums);
    return sums;
  }
  ShardCheck c = check(task.scalar);
  std::vector<double> sums = std::move(c.raw_gradient);
  sums.push_back(c.centred_rss);
  sums.push_back(c.centred_dot_y);
  return sums;
}

}  // namespace gyre::lasso
