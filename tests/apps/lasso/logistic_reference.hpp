// tests/apps/lasso/logistic_reference.hpp — sparse logistic regression computed plainly and serially: generated problems, sums, objective, a reference solver.
#pragma once

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "gyre/data/column_matrix.hpp"
#include "gyre/data/regression.hpp"
#include "lasso/column_stats.hpp"
#include "lasso/logistic.hpp"
#include "lasso/penalty.hpp"

namespace gyre_test {

using gyre::data::RegressionSet;
using gyre::lasso::ColumnStats;
using gyre::lasso::LogisticShardCheck;
using gyre::lasso::Penalty;

// n × p with each entry non-zero with probability `density` (normal values, column j scaled by
// 1 + j % 3 so standardisation matters), labels drawn from a planted model so both classes occur.
inline RegressionSet generated_classes(std::uint64_t n, std::uint32_t p, double density, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal;
  std::uniform_real_distribution<double> unit;
  std::vector<double> beta(p, 0.0);
  for (std::uint32_t j = 0; j < p; j += 4) beta[j] = (j % 8 ? 1.0 : -1.5);
  RegressionSet set;
  set.features = p;
  std::vector<std::uint32_t> cols;
  std::vector<double> values;
  for (std::uint64_t i = 0; i < n; ++i) {
    cols.clear();
    values.clear();
    double margin = 0.3;
    for (std::uint32_t j = 0; j < p; ++j)
      if (unit(rng) < density) {
        cols.push_back(j);
        values.push_back(normal(rng) * (1 + j % 3));
        margin += beta[j] * values.back();
      }
    const double y = unit(rng) < 1 / (1 + std::exp(-margin)) ? 1.0 : 0.0;
    set.add_row(i, y, cols, values);
  }
  return set;
}

// log(1 + e^m) − y·m, written out independently of logistic.hpp.
inline double plain_loss(double m, double y) { return std::log1p(std::exp(-std::abs(m))) + std::max(m, 0.0) - y * m; }

// m = b + Σ_j x_j γ_j/s_j.
inline std::vector<double> margins_of(const RegressionSet& set, const ColumnStats& stats,
                                      const std::vector<double>& gamma, double intercept) {
  std::vector<double> m(set.samples(), intercept);
  for (std::uint64_t i = 0; i < set.samples(); ++i) {
    const auto cols = set.row_cols(i);
    const auto vals = set.row_values(i);
    for (std::size_t e = 0; e < cols.size(); ++e) m[i] += vals[e] * gamma[cols[e]] / stats.scale[cols[e]];
  }
  return m;
}

// Every sum of a LogisticShardCheck, straight from the margins.
inline LogisticShardCheck direct_check(const RegressionSet& set, const std::vector<double>& m) {
  const std::uint32_t p = set.features;
  LogisticShardCheck c;
  c.sums.assign(2 * (std::size_t{p} + 1), 0.0);
  c.with_p.assign(std::size_t{p} + 1, 0.0);
  c.with_not_p.assign(std::size_t{p} + 1, 0.0);
  for (std::uint64_t i = 0; i < set.samples(); ++i) {
    const double prob = gyre::lasso::sigmoid(m[i]), not_prob = gyre::lasso::sigmoid(-m[i]);
    const double residual = prob - set.y[i], weight = prob * not_prob;
    c.loss += plain_loss(m[i], set.y[i]);
    c.entropy += (prob > 0 ? prob * std::log(prob) : 0) + (not_prob > 0 ? not_prob * std::log(not_prob) : 0);
    const auto cols = set.row_cols(i);
    const auto vals = set.row_values(i);
    for (std::size_t e = 0; e < cols.size(); ++e) {
      c.sums[2 * cols[e]] += vals[e] * residual;
      c.sums[2 * cols[e] + 1] += vals[e] * vals[e] * weight;
      c.with_p[cols[e]] += vals[e] * prob;
      c.with_not_p[cols[e]] += vals[e] * not_prob;
    }
    c.sums[2 * p] += residual;
    c.sums[2 * p + 1] += weight;
    c.with_p[p] += prob;
    c.with_not_p[p] += not_prob;
  }
  return c;
}

// Σ_i H(q_i), q_i = y_i − θ_i, θ = s·(y − p̃), in the plain form of the derivation.
inline double direct_dual_sum(const RegressionSet& set, const std::vector<double>& m,
                              const gyre::lasso::LogisticDualPoint& point) {
  double sum = 0;
  for (std::uint64_t i = 0; i < set.samples(); ++i) {
    const double prob = gyre::lasso::sigmoid(m[i]);
    const double shifted = point.shift >= 0 ? prob + point.shift * (1 - prob) : (1 + point.shift) * prob;
    const double q = set.y[i] - point.scale * (set.y[i] - shifted);
    sum += (q > 0 ? q * std::log(q) : 0) + (q < 1 ? (1 - q) * std::log(1 - q) : 0);
  }
  return sum;
}

inline double objective(const RegressionSet& set, const ColumnStats& stats, const Penalty& penalty,
                        const std::vector<double>& gamma, double intercept) {
  const auto m = margins_of(set, stats, gamma, intercept);
  double loss = 0;
  for (std::uint64_t i = 0; i < set.samples(); ++i)
    loss += plain_loss(m[i], set.y[i]);
  double penalties = 0;
  for (const double g : gamma) penalties += penalty.value(g);
  return loss / static_cast<double>(set.samples()) + penalties;
}

struct ReferenceSolution {
  std::vector<double> gamma;
  double intercept = 0;
  double objective = 0;
  double kkt = 0;
};

// Cyclic proximal Newton coordinate descent with an Armijo backtracking line search (Tseng and
// Yun's rule), every sum recomputed from scratch, until the KKT violation is below 1e-12.
// With an intercept it descends in centred coordinates, as glmnet does: x̃ − mean(x̃) for each
// column, and the intercept of the centred margins, b' = b + Σ γ_j·mean_j. The optimum is the
// same point (the margins are the same numbers), but columns whose means dwarf their spread are
// nearly collinear with the intercept in the raw coordinates, where coordinate descent crawled:
// 99% of logistic_solve_test's dearest case (6.7 s, 68 s under ThreadSanitizer) and most of
// lasso_real_data_test's logistic path (17 s) were this solver on such columns.
inline ReferenceSolution reference_solve(const RegressionSet& set, const ColumnStats& stats, bool intercept,
                                         const Penalty& penalty) {
  const std::uint32_t p = set.features;
  const double n = static_cast<double>(set.samples());
  const auto columns = gyre::data::to_columns(set);
  ReferenceSolution s;
  s.gamma.assign(p, 0.0);
  std::vector<double> m(set.samples(), 0.0);
  // Each coordinate's x̃ entries by row (k = p: the intercept's), built once: rebuilt per update
  // they were an eighth of lasso_real_data_test's profile (allocations, dearer still under ASan).
  std::vector<std::vector<std::pair<std::uint64_t, double>>> entries_of(std::size_t{p} + 1);
  std::vector<double> mean(p, 0.0);  // of each column of x̃, zeros included; 0 without an intercept
  for (std::uint32_t k = 0; k < p; ++k) {
    std::vector<double> column(set.samples(), 0.0);
    for (std::uint64_t e = columns.col_begin[k]; e < columns.col_begin[k + 1]; ++e) {
      column[columns.rows[e]] = columns.values[e] / stats.scale[k];
      if (intercept) mean[k] += columns.values[e] / stats.scale[k] / n;
    }
    if (mean[k] == 0) {
      for (std::uint64_t e = columns.col_begin[k]; e < columns.col_begin[k + 1]; ++e)
        entries_of[k].push_back({columns.rows[e], columns.values[e] / stats.scale[k]});
    } else {
      for (std::uint64_t i = 0; i < set.samples(); ++i) entries_of[k].push_back({i, column[i] - mean[k]});
    }
  }
  // The intercept in the raw coordinates, from the centred one (s.intercept while descending).
  const auto raw_intercept = [&] {
    double b = s.intercept;
    for (std::uint32_t k = 0; k < p; ++k) b -= s.gamma[k] * mean[k];
    return b;
  };
  for (std::uint64_t i = 0; i < set.samples(); ++i) entries_of[p].push_back({i, 1.0});
  // One coordinate: a damped prox-Newton step.
  auto update = [&](std::uint32_t k) {
    const auto& entries = entries_of[k];
    const Penalty own = k == p ? Penalty{0, 1} : penalty;
    double& value = k == p ? s.intercept : s.gamma[k];
    double g = 0, h = 0;
    for (const auto& [i, x] : entries) {
      const double prob = gyre::lasso::sigmoid(m[i]);
      g += x * (prob - set.y[i]) / n;
      h += x * x * prob * (1 - prob) / n;
    }
    h = std::max(h, 1e-12);
    const double d = gyre::lasso::soft_threshold(h * value - g, own.l1()) / (h + own.l2()) - value;
    if (d == 0) return;
    const double model = g * d + own.value(value + d) - own.value(value);
    double t = 1;
    for (int halvings = 0; halvings < 60 && model < -1e-15; ++halvings, t *= 0.5) {
      double change = own.value(value + t * d) - own.value(value);
      for (const auto& [i, x] : entries) change += (plain_loss(m[i] + t * d * x, set.y[i]) - plain_loss(m[i], set.y[i])) / n;
      if (change <= 0.25 * t * model) break;
    }
    for (const auto& [i, x] : entries) m[i] += t * d * x;
    value += t * d;
  };
  for (int sweep = 0; sweep < 20000; ++sweep) {
    for (std::uint32_t j = 0; j < p; ++j)
      if (stats.usable[j]) update(j);
    if (intercept) update(p);
    m = margins_of(set, stats, s.gamma, raw_intercept());  // no drift from the running updates
    const LogisticShardCheck c = direct_check(set, m);
    s.kkt = intercept ? std::abs(c.sums[2 * p]) / n : 0.0;
    for (std::uint32_t j = 0; j < p; ++j)
      if (stats.usable[j])
        s.kkt = std::max(s.kkt, gyre::lasso::kkt_violation(s.gamma[j], -c.sums[2 * j] / (n * stats.scale[j]), penalty));
    if (s.kkt < 1e-12) break;
  }
  s.intercept = raw_intercept();
  s.objective = objective(set, stats, penalty, s.gamma, s.intercept);
  return s;
}

}  // namespace gyre_test
