// tests/apps/lasso/logistic_checks.hpp — optimality of a sparse logistic regression solution, computed straight from the data and the plain reference solver.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <vector>

#include "lasso/config.hpp"
#include "lasso/round_scheduler.hpp"
#include "logistic_reference.hpp"

namespace gyre_test {

inline gyre::lasso::ColumnStats logistic_stats(const RegressionSet& set, const gyre::lasso::LassoConfig& c) {
  return gyre::lasso::compute_column_stats(set, c.intercept, c.standardize);
}

// The largest violation of the KKT conditions of F (logistic.hpp) at a solution on the original
// scale, from the data: per feature |x̃_jᵀ(y − p)/n| against the penalty, and |Σ(p − y)|/n for the
// intercept. A column that cannot move must be 0 (else the violation is infinite).
inline double logistic_kkt(const RegressionSet& set, const gyre::lasso::LassoConfig& c,
                           const gyre::lasso::LambdaSolution& s) {
  const ColumnStats stats = logistic_stats(set, c);
  const double n = static_cast<double>(set.samples());
  const Penalty penalty{s.lambda, c.alpha};
  std::vector<double> gamma(set.features);
  for (std::uint32_t j = 0; j < set.features; ++j) gamma[j] = s.beta[j] * stats.scale[j];
  const LogisticShardCheck sums = direct_check(set, margins_of(set, stats, gamma, s.intercept));
  double worst = c.intercept ? std::abs(sums.sums[2 * std::size_t{set.features}]) / n : 0.0;
  if (!c.intercept && s.intercept != 0) return INFINITY;
  for (std::uint32_t j = 0; j < set.features; ++j) {
    if (!stats.usable[j]) {
      if (s.beta[j] != 0) return INFINITY;
      continue;
    }
    worst = std::max(worst, gyre::lasso::kkt_violation(gamma[j], -sums.sums[2 * j] / (n * stats.scale[j]), penalty));
  }
  return worst;
}

// F at a solution on the original scale, from the data.
inline double logistic_objective(const RegressionSet& set, const gyre::lasso::LassoConfig& c, double lambda,
                                 const std::vector<double>& beta, double intercept) {
  const ColumnStats stats = logistic_stats(set, c);
  std::vector<double> gamma(set.features);
  for (std::uint32_t j = 0; j < set.features; ++j) gamma[j] = beta[j] * stats.scale[j];
  return objective(set, stats, Penalty{lambda, c.alpha}, gamma, intercept);
}

// The plain reference solver's optimum of the same problem, solved once per problem: tests hold
// many runs (schedules, depths, workers, backends) to the optimum of one, and under the
// sanitizers the reference solve was most of their time (logistic_solve_test: 413 s under TSan).
// The problem is known by a 64-bit FNV-1a hash of the data and of every setting the optimum
// depends on, so a set rebuilt at the same address is not mistaken for another.
inline double reference_objective(const RegressionSet& set, const gyre::lasso::LassoConfig& c, double lambda) {
  std::uint64_t h = 14695981039346656037ull;
  const auto fold = [&h](const void* data, std::size_t bytes) {
    const auto* p = static_cast<const unsigned char*>(data);
    for (std::size_t i = 0; i < bytes; ++i) h = (h ^ p[i]) * 1099511628211ull;
  };
  const auto fold_all = [&fold](const auto& v) { fold(v.data(), v.size() * sizeof(v[0])); };
  fold_all(set.row_begin);
  fold_all(set.cols);
  fold_all(set.values);
  fold_all(set.y);
  fold(&set.features, sizeof set.features);
  const bool intercept = c.intercept, standardize = c.standardize;
  fold(&intercept, sizeof intercept);
  fold(&standardize, sizeof standardize);
  fold(&c.alpha, sizeof c.alpha);
  fold(&lambda, sizeof lambda);
  static std::mutex mutex;
  static std::map<std::uint64_t, double> solved;
  std::lock_guard lock(mutex);
  const auto [at, fresh] = solved.try_emplace(h, 0.0);
  if (fresh) at->second = reference_solve(set, logistic_stats(set, c), c.intercept, Penalty{lambda, c.alpha}).objective;
  return at->second;
}

}  // namespace gyre_test
