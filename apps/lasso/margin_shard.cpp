// apps/lasso/margin_shard.cpp — margin updates and logistic partial sums over a worker's rows, one task per part.
#include "lasso/margin_shard.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace gyre::lasso {
namespace {

// p and 1 − p of a row from its label and p − y, the smaller of the two exact.
struct Odds {
  double p, not_p;
};
Odds odds(double y, double residual) noexcept {
  return y > 0.5 ? Odds{1 + residual, -residual} : Odds{residual, 1 - residual};
}

}  // namespace

MarginShard::MarginShard(const data::RegressionSet& rows, int parts, int threads)
    : rows_(rows, parts, threads), parts_(rows_.size()) {
  for (std::uint64_t i = 0; i < rows.samples(); ++i)
    if (rows.y[i] != 0 && rows.y[i] != 1)
      throw std::invalid_argument("logistic rows need labels 0 or 1, sample " + std::to_string(i) + " has " +
                                  std::to_string(rows.y[i]));
  rows_.for_each([&](std::size_t p) {
    const auto dealt = rows_.rows(p);
    Part& part = parts_[p];
    part.y.resize(dealt.size());
    for (std::size_t r = 0; r < dealt.size(); ++r) part.y[r] = rows.y[dealt[r]];
    part.margin.assign(dealt.size(), 0.0);
    part.residual.resize(dealt.size());
    for (std::size_t r = 0; r < dealt.size(); ++r) part.residual[r] = 0.5 - part.y[r];
    part.weight.assign(dealt.size(), 0.25);
    part.touched.assign(dealt.size(), 0);
  });
}

MarginShard::~MarginShard() = default;

void MarginShard::check_ids(std::span<const std::uint32_t> params) const {
  for (const std::uint32_t k : params)
    if (k > features())
      throw std::out_of_range("parameter " + std::to_string(k) + " beyond the " + std::to_string(features()) +
                              " features and the intercept");
}

void MarginShard::apply(std::span<const rounds::Step> steps) {
  if (steps.empty()) return;
  bool every_row = false;
  for (const rounds::Step& s : steps) {
    check_ids(std::span<const std::uint32_t>(&s.param, 1));
    every_row = every_row || s.param == features();
  }
  if (cycles_.stepper)
    for (const rounds::Step& s : steps) {
      if (s.param == features()) b_ += s.delta;
      else gamma_[s.param] += s.delta * cycles_.stepper->stats().scale[s.param];
    }
  rows_.for_each([&](std::size_t p) { apply_part(p, steps, every_row); });
}

void MarginShard::apply_part(std::size_t p, std::span<const rounds::Step> steps, bool every_row) {
  {
    const auto& c = rows_.columns(p);
    Part& part = parts_[p];
    for (const rounds::Step& s : steps) {
      if (s.param == features()) {
        for (double& m : part.margin) m += s.delta;
        continue;
      }
      for (std::uint64_t e = c.col_begin[s.param]; e < c.col_begin[s.param + 1]; ++e) {
        const std::uint32_t r = c.rows[e];
        part.margin[r] += c.values[e] * s.delta;
        if (!every_row && !part.touched[r]) {
          part.touched[r] = 1;
          part.touched_rows.push_back(r);
        }
      }
    }
    auto refresh = [&part](std::size_t r) { refresh_row(part, r); };
    if (every_row)
      for (std::size_t r = 0; r < part.margin.size(); ++r) refresh(r);
    for (const std::uint32_t r : part.touched_rows) {
      refresh(r);
      part.touched[r] = 0;
    }
    part.touched_rows.clear();
  }
}

void MarginShard::enable_cycles(const LogisticCycleSettings& settings) {
  if (!settings.stepper || settings.stepper->stats().features() != features() ||
      settings.stepper->stats().samples != samples())
    throw std::invalid_argument("cycles need the statistics of this shard's columns, and every row");
  cycles_ = settings;
  gamma_.assign(features(), 0.0);
  b_ = 0;
}

void MarginShard::save(StateWriter& out) const {
  save_parts(out, parts_.size());
  for (const Part& part : parts_) {
    out.put_all(part.margin);
    out.put_all(part.residual);
    out.put_all(part.weight);
  }
  save_cycles(out, cycles_.stepper != nullptr, gamma_, b_, depth_);
}

void MarginShard::restore(StateReader& in) {
  check_parts(in, parts_.size());
  for (Part& part : parts_) {
    part.margin = in.get_all<double>(part.y.size(), "a part's margins");
    part.residual = in.get_all<double>(part.y.size(), "a part's p − y");
    part.weight = in.get_all<double>(part.y.size(), "a part's p(1 − p)");
  }
  restore_cycles(in, {cycles_.stepper != nullptr, gamma_, b_, depth_});
}

LogisticStepper::Totals MarginShard::totals() const {
  LogisticStepper::Totals t;
  for (const Part& part : parts_)
    for (std::size_t r = 0; r < part.residual.size(); ++r) {
      t.residual += part.residual[r];
      t.weight += part.weight[r];
    }
  return t;
}

void MarginShard::refresh_row(Part& part, std::size_t r) noexcept {
  const Sigmoids s = sigmoids(part.margin[r]);
  part.residual[r] = part.y[r] > 0.5 ? -s.not_p : s.p;
  part.weight[r] = s.p * s.not_p;
}

void MarginShard::part_partials(std::size_t index, std::span<const std::uint32_t> params, std::span<double> out,
                                 bool with_moment) const {
  const auto& c = rows_.columns(index);
  const Part& part = parts_[index];
  const std::size_t width = with_moment ? 3 : 2;
  for (std::size_t f = 0; f < params.size(); ++f) {
    const std::uint32_t k = params[f];
    double gradient = 0, curvature = 0, moment = 0;
    if (k == features()) {
      for (std::size_t r = 0; r < part.residual.size(); ++r) {
        gradient += part.residual[r];
        curvature += part.weight[r];
      }
      moment = curvature;
    } else {
      for (std::uint64_t e = c.col_begin[k]; e < c.col_begin[k + 1]; ++e) {
        const double x = c.values[e], w = part.weight[c.rows[e]];
        gradient += x * part.residual[c.rows[e]];
        curvature += x * x * w;
        moment += x * w;
      }
    }
    out[width * f] = gradient;
    out[width * f + 1] = curvature;
    if (with_moment) out[width * f + 2] = moment;
  }
}

void MarginShard::partials(std::span<const std::uint32_t> params, std::span<double> out, bool with_moment) {
  check_ids(params);
  rows_.for_each([&](std::size_t p) {
    std::vector<double>& sums = rows_.part_sums(p);
    sums.resize((with_moment ? 3 : 2) * params.size());
    part_partials(p, params, sums, with_moment);
  });
  rows_.add_part_sums(out);
}

LogisticShardCheck MarginShard::check() {
  const std::size_t width = std::size_t{features()} + 1;
  std::vector<std::uint32_t> every(width);
  for (std::uint32_t k = 0; k <= features(); ++k) every[k] = k;
  std::vector<LogisticShardCheck> per_part(parts_.size());
  std::vector<std::vector<Odds>> odds_of(parts_.size());
  // A part's rows: their odds, loss and entropy, and the intercept's column.
  auto rows_of = [&](std::size_t index) {
    LogisticShardCheck& out = per_part[index];
    const Part& part = parts_[index];
    out.sums.resize(2 * width);
    out.with_p.assign(width, 0.0);
    out.with_not_p.assign(width, 0.0);
    std::vector<Odds>& row_odds = odds_of[index];
    row_odds.resize(part.y.size());
    for (std::size_t r = 0; r < part.y.size(); ++r) {
      row_odds[r] = odds(part.y[r], part.residual[r]);
      out.loss += logistic_loss(part.margin[r], part.y[r]);
      out.entropy += negative_entropy(row_odds[r].p, row_odds[r].not_p);
      out.with_p[features()] += row_odds[r].p;
      out.with_not_p[features()] += row_odds[r].not_p;
    }
  };
  // Parameters [begin, end) over a part's rows, once rows_of(index) has run.
  auto columns_of = [&](std::size_t index, std::size_t begin, std::size_t end) {
    LogisticShardCheck& out = per_part[index];
    const auto& c = rows_.columns(index);
    const std::vector<Odds>& row_odds = odds_of[index];
    part_partials(index, std::span<const std::uint32_t>(every).subspan(begin, end - begin),
                  std::span<double>(out.sums).subspan(2 * begin, 2 * (end - begin)), false);
    for (std::size_t j = begin; j < std::min<std::size_t>(end, features()); ++j)
      for (std::uint64_t e = c.col_begin[j]; e < c.col_begin[j + 1]; ++e) {
        out.with_p[j] += c.values[e] * row_odds[c.rows[e]].p;
        out.with_not_p[j] += c.values[e] * row_odds[c.rows[e]].not_p;
      }
  };
  // One part on more threads: its columns in blocks, a block a thread (the same sums).
  const bool blocks = parts_.size() == 1 && rows_.threads() > 1;
  rows_.for_each([&](std::size_t index) {
    rows_of(index);
    if (!blocks) columns_of(index, 0, width);
  });
  if (blocks) rows_.for_each_block(width, [&](std::size_t begin, std::size_t end) { columns_of(0, begin, end); });
  LogisticShardCheck total;
  for (const LogisticShardCheck& part : per_part) add_check(total, part);
  return total;
}

double MarginShard::dual_sum(const LogisticDualPoint& point) {
  const double scale[] = {point.scale};
  return dual_sums(point.shift, scale)[0];
}

std::vector<double> MarginShard::dual_sums(double shift, std::span<const double> scales) {
  const double kappa = shift;
  if (!(kappa >= -1 && kappa <= 1)) throw std::invalid_argument("a dual point's shift must be in [-1, 1]");
  for (const double s : scales)
    if (!(s >= 0 && s <= 1)) throw std::invalid_argument("a dual point's scale must be in [0, 1]");
  std::vector<std::vector<double>> per_part(parts_.size());
  rows_.for_each([&](std::size_t index) {
    const Part& part = parts_[index];
    std::vector<double>& sums = per_part[index];
    sums.assign(scales.size(), 0.0);
    for (std::size_t r = 0; r < part.y.size(); ++r) {
      const Odds o = odds(part.y[r], part.residual[r]);
      // p̃ and 1 − p̃, then q = (1 − s)y + s·p̃ and 1 − q, each a sum of non-negative terms.
      const Odds shifted = kappa >= 0 ? Odds{o.p + kappa * o.not_p, (1 - kappa) * o.not_p}
                                      : Odds{(1 + kappa) * o.p, o.not_p - kappa * o.p};
      for (std::size_t k = 0; k < scales.size(); ++k) {
        const double s = scales[k];
        const Odds q = part.y[r] > 0.5 ? Odds{(1 - s) + s * shifted.p, s * shifted.not_p}
                                       : Odds{s * shifted.p, (1 - s) + s * shifted.not_p};
        sums[k] += negative_entropy(q.p, q.not_p);
      }
    }
  });
  std::vector<double> total(scales.size(), 0.0);
  for (const std::vector<double>& sums : per_part)
    for (std::size_t k = 0; k < sums.size(); ++k) total[k] += sums[k];
  return total;
}

std::vector<double> MarginShard::push(const rounds::Task& task) {
  const RoundKind kind = static_cast<RoundKind>(task.kind);
  if (kind == RoundKind::kPartials || kind == RoundKind::kCentredPartials) {
    const bool with_moment = kind == RoundKind::kCentredPartials;
    std::vector<double> sums((with_moment ? 3 : 2) * task.params.size());
    partials(task.params, sums, with_moment);
    return sums;
  }
  if (kind == RoundKind::kDual) return dual_sums(task.scalar, refinement_scales());
  if (kind == RoundKind::kCycle) return cycle(task.scalar, task.params);
  return logistic_check_sums(check());
}

}  // namespace gyre::lasso
