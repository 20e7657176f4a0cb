// apps/lasso/residual_shard.cpp — residual updates and partial sums over a worker's rows, one task per part.
#include "lasso/residual_shard.hpp"

#include <algorithm>
#include <optional>
#include <stdexcept>
#include <string>

#include "lasso/anderson.hpp"
#include "lasso/penalty.hpp"

namespace gyre::lasso {
namespace {

// x_jᵀr over one part's rows.
double dot(const data::ColumnMatrix& c, const std::vector<double>& residual, std::uint32_t j) noexcept {
  double sum = 0;
  for (std::uint64_t e = c.col_begin[j]; e < c.col_begin[j + 1]; ++e) sum += c.values[e] * residual[c.rows[e]];
  return sum;
}

// r −= x_j·Δβ_j over one part's rows.
void subtract(const data::ColumnMatrix& c, std::vector<double>& residual, std::uint32_t j, double step) noexcept {
  for (std::uint64_t e = c.col_begin[j]; e < c.col_begin[j + 1]; ++e) residual[c.rows[e]] -= c.values[e] * step;
}

}  // namespace

ResidualShard::ResidualShard(const data::RegressionSet& rows, double y_offset, int parts, int threads)
    : rows_(rows, parts, threads), parts_(rows_.size()) {
  rows_.for_each([&](std::size_t p) {
    const auto dealt = rows_.rows(p);
    Part& part = parts_[p];
    part.y.resize(dealt.size());
    for (std::size_t r = 0; r < dealt.size(); ++r) part.y[r] = rows.y[dealt[r]] - y_offset;
    part.residual = part.y;
  });
}

ResidualShard::~ResidualShard() = default;

void ResidualShard::apply(std::span<const rounds::Step> steps) {
  if (steps.empty()) return;
  if (cycles_.stats)
    for (const rounds::Step& s : steps) {
      gamma_[s.param] += s.delta * cycles_.stats->scale[s.param];
      mu_dot_beta_ += cycles_.stats->mean[s.param] * s.delta;
    }
  rows_.for_each([&](std::size_t p) {
    const auto& c = rows_.columns(p);
    Part& part = parts_[p];
    for (const rounds::Step& s : steps) subtract(c, part.residual, s.param, s.delta);
  });
}

void ResidualShard::partial_gradients(std::span<const std::uint32_t> features, std::span<double> out) {
  rows_.for_each([&](std::size_t p) {
    const auto& c = rows_.columns(p);
    const Part& part = parts_[p];
    std::vector<double>& sums = rows_.part_sums(p);
    sums.resize(features.size());
    for (std::size_t f = 0; f < features.size(); ++f) sums[f] = dot(c, part.residual, features[f]);
  });
  rows_.add_part_sums(out);
}

ShardCheck ResidualShard::check(double residual_mean) {
  std::vector<ShardCheck> per_part(parts_.size());
  const std::uint32_t columns = rows_.features();
  // One part on more threads: its columns in blocks, a block a thread (the same sums).
  const bool blocks = parts_.size() == 1 && rows_.threads() > 1;
  if (blocks) {
    per_part[0].raw_gradient.resize(columns);
    rows_.for_each_block(columns, [&](std::size_t begin, std::size_t end) {
      for (std::size_t j = begin; j < end; ++j)
        per_part[0].raw_gradient[j] = dot(rows_.columns(0), parts_[0].residual, static_cast<std::uint32_t>(j));
    });
  }
  rows_.for_each([&](std::size_t index) {
    ShardCheck& out = per_part[index];
    const auto& c = rows_.columns(index);
    const Part& part = parts_[index];
    if (!blocks) {
      out.raw_gradient.assign(columns, 0.0);
      for (std::uint32_t j = 0; j < columns; ++j) out.raw_gradient[j] = dot(c, part.residual, j);
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

void ResidualShard::enable_cycles(const CycleSettings& settings) {
  if (!settings.stats || settings.stats->features() != features() || settings.stats->samples != samples())
    throw std::invalid_argument("cycles need the statistics of this shard's columns, and every row");
  cycles_ = settings;
  gamma_.assign(features(), 0.0);
  mu_dot_beta_ = 0;
  double square = 0;
  for (const Part& part : parts_)
    for (const double y : part.y) square += y * y;
  null_objective_ = square / (2.0 * static_cast<double>(samples()));
}

std::vector<double> ResidualShard::cycle(double lambda, std::span<const std::uint32_t> active) {
  if (!cycles_.stats) throw std::invalid_argument("a cycle asked of a worker that does not hold every row");
  const ColumnStats& stats = *cycles_.stats;
  const Penalty penalty{lambda, cycles_.alpha};
  const double enough =
      depth_.next(lambda, 0.1 * cycles_.tol * null_objective_ / static_cast<double>(std::max<std::size_t>(active.size(), 1)));
  auto step = [&](std::uint32_t j) -> CoordinateMove {
    if (!stats.usable[j]) return {};
    // Part by part on this thread: a task per coordinate would cost more than the column.
    double raw = 0;
    for (std::size_t p = 0; p < parts_.size(); ++p) raw += dot(rows_.columns(p), parts_[p].residual, j);
    const double next =
        coordinate_minimiser(gamma_[j], stats.gradient(j, raw, -mu_dot_beta_), stats.curvature[j], penalty);
    const double delta = next - gamma_[j];
    if (delta == 0) return {0, next != 0};
    gamma_[j] = next;
    const double beta_step = delta / stats.scale[j];
    for (std::size_t p = 0; p < parts_.size(); ++p) subtract(rows_.columns(p), parts_[p].residual, j, beta_step);
    mu_dot_beta_ += stats.mean[j] * beta_step;
    return {0.5 * stats.curvature[j] * delta * delta, next != 0};
  };
  AndersonExtrapolation anderson;
  std::vector<double> point;
  auto extrapolate = [&](std::span<const std::uint32_t> moving, bool restart) {
    if (restart) anderson.restart();
    point.resize(moving.size());
    for (std::size_t f = 0; f < moving.size(); ++f) point[f] = gamma_[moving[f]];
    const std::optional<std::vector<double>> next = anderson.record(point);
    if (!next || !take_if_lower(moving, *next, penalty)) return;
    // The iteration goes on from the extrapolated point: a history of it alone.
    anderson.restart();
    (void)anderson.record(*next);
  };
  const std::uint64_t updates =
      active_set_cycle(active, enough, cycles_.max_sweeps, true, step, [] { return 0.0; }, extrapolate);
  std::vector<double> out;
  out.reserve(active.size() + 1);
  for (const std::uint32_t j : active) out.push_back(gamma_[j]);
  out.push_back(static_cast<double>(updates));
  return out;
}

bool ResidualShard::take_if_lower(std::span<const std::uint32_t> coordinates, std::span<const double> next,
                                  const Penalty& penalty) {
  const ColumnStats& stats = *cycles_.stats;
  // F's change, exactly and without forming F: the residual moves by d = −X·Δβ on the rows the
  // coordinates' columns touch, so Σr² by Σ d·(2r + d) over those rows, and the mean m = −μᵀβ
  // (Σ(r − m)² = Σr² − n·m²) by −μᵀΔβ.
  double square_change = 0, mean_step = 0, penalty_change = 0;
  for (std::size_t p = 0; p < parts_.size(); ++p) {
    const data::ColumnMatrix& c = rows_.columns(p);
    Part& part = parts_[p];
    part.change.resize(part.residual.size(), 0.0);
    part.marked.resize(part.residual.size(), 0);
    part.touched.clear();
    for (std::size_t f = 0; f < coordinates.size(); ++f) {
      const std::uint32_t j = coordinates[f];
      const double beta_step = (next[f] - gamma_[j]) / stats.scale[j];
      if (beta_step == 0) continue;
      for (std::uint64_t e = c.col_begin[j]; e < c.col_begin[j + 1]; ++e) {
        const std::uint32_t row = c.rows[e];
        if (!part.marked[row]) {
          part.marked[row] = 1;
          part.touched.push_back(row);
        }
        part.change[row] -= c.values[e] * beta_step;
      }
    }
    for (const std::uint32_t row : part.touched) {
      const double d = part.change[row];
      square_change += d * (2 * part.residual[row] + d);
    }
  }
  for (std::size_t f = 0; f < coordinates.size(); ++f) {
    const std::uint32_t j = coordinates[f];
    mean_step += stats.mean[j] * (next[f] - gamma_[j]) / stats.scale[j];
    penalty_change += penalty.value(next[f]) - penalty.value(gamma_[j]);
  }
  const double n = static_cast<double>(samples());
  const double mean = -mu_dot_beta_, moved_mean = -(mu_dot_beta_ + mean_step);
  const double change = square_change / (2 * n) - 0.5 * (moved_mean * moved_mean - mean * mean) + penalty_change;
  const bool lower = change < 0;
  for (Part& part : parts_) {
    for (const std::uint32_t row : part.touched) {
      if (lower) part.residual[row] += part.change[row];
      part.change[row] = 0;
      part.marked[row] = 0;
    }
    part.touched.clear();
  }
  if (!lower) return false;
  for (std::size_t f = 0; f < coordinates.size(); ++f) gamma_[coordinates[f]] = next[f];
  mu_dot_beta_ += mean_step;
  return true;
}

std::vector<double> ResidualShard::push(const rounds::Task& task) {
  if (static_cast<RoundKind>(task.kind) == RoundKind::kPartials) {
    std::vector<double> sums(task.params.size());
    partial_gradients(task.params, sums);
    return sums;
  }
  if (static_cast<RoundKind>(task.kind) == RoundKind::kCycle) return cycle(task.scalar, task.params);
  if (static_cast<RoundKind>(task.kind) != RoundKind::kCheck)
    throw std::invalid_argument("round kind " + std::to_string(task.kind) +
                                " is the logistic loss's; this worker fits least squares");
  ShardCheck c = check(task.scalar);
  std::vector<double> sums = std::move(c.raw_gradient);
  sums.push_back(c.centred_rss);
  sums.push_back(c.centred_dot_y);
  return sums;
}

void ResidualShard::save(StateWriter& out) const {
  save_parts(out, parts_.size());
  for (const Part& part : parts_) out.put_all(part.residual);
  save_cycles(out, cycles_.stats != nullptr, gamma_, mu_dot_beta_, depth_);
}

void ResidualShard::restore(StateReader& in) {
  check_parts(in, parts_.size());
  for (Part& part : parts_) part.residual = in.get_all<double>(part.y.size(), "a part's residual");
  restore_cycles(in, {cycles_.stats != nullptr, gamma_, mu_dot_beta_, depth_});
}

}  // namespace gyre::lasso
