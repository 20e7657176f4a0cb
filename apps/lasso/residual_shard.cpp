// apps/lasso/residual_shard.cpp — residual updates and partial sums over a worker's rows, one task per part.
#include "lasso/residual_shard.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace gyre::lasso {

ResidualShard::ResidualShard(const data::RegressionSet& rows, double y_offset, int threads)
    : rows_(rows, threads), parts_(rows_.size()) {
  rows_.for_each([&](std::size_t p) {
    const auto dealt = rows_.rows(p);
    Part& part = parts_[p];
    part.y.resize(dealt.size());
    for (std::size_t r = 0; r < dealt.size(); ++r) part.y[r] = rows.y[dealt[r]] - y_offset;
    part.residual = part.y;
  });
}

ResidualShard::~ResidualShard() = default;

void ResidualShard::apply(std::span<const scheduler::Step> steps) {
  if (steps.empty()) return;
  rows_.for_each([&](std::size_t p) {
    const auto& c = rows_.columns(p);
    Part& part = parts_[p];
    for (const scheduler::Step& s : steps) {
      for (std::uint64_t e = c.col_begin[s.param]; e < c.col_begin[s.param + 1]; ++e)
        part.residual[c.rows[e]] -= c.values[e] * s.delta;
    }
  });
}

void ResidualShard::partial_gradients(std::span<const std::uint32_t> features, std::span<double> out) {
  rows_.for_each([&](std::size_t p) {
    const auto& c = rows_.columns(p);
    const Part& part = parts_[p];
    std::vector<double>& sums = rows_.part_sums(p);
    sums.resize(features.size());
    for (std::size_t f = 0; f < features.size(); ++f) {
      const std::uint32_t j = features[f];
      double sum = 0;
      for (std::uint64_t e = c.col_begin[j]; e < c.col_begin[j + 1]; ++e) sum += c.values[e] * part.residual[c.rows[e]];
      sums[f] = sum;
    }
  });
  rows_.add_part_sums(out);
}

ShardCheck ResidualShard::check(double residual_mean) {
  std::vector<ShardCheck> per_part(parts_.size());
  const std::uint32_t columns = rows_.features();
  rows_.for_each([&](std::size_t index) {
    ShardCheck& out = per_part[index];
    const auto& c = rows_.columns(index);
    const Part& part = parts_[index];
    out.raw_gradient.assign(columns, 0.0);
    for (std::uint32_t j = 0; j < columns; ++j) {
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
    for (std::uint32_t j = 0; j < columns; ++j) total.raw_gradient[j] += per_part[p].raw_gradient[j];
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
  if (static_cast<RoundKind>(task.kind) != RoundKind::kCheck)
    throw std::invalid_argument("round kind " + std::to_string(task.kind) +
                                " is the logistic loss's; this worker fits least squares");
  ShardCheck c = check(task.scalar);
  std::vector<double> sums = std::move(c.raw_gradient);
  sums.push_back(c.centred_rss);
  sums.push_back(c.centred_dot_y);
  return sums;
}

}  // namespace gyre::lasso
