// tests/apps/lasso/logistic_checks.hpp — optimality of a sparse logistic regression solution, computed straight from the data and the plain reference solver.
#pragma once

#include <cmath>
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

// The plain reference solver's optimum of the same problem.
inline double reference_objective(const RegressionSet& set, const gyre::lasso::LassoConfig& c, double lambda) {
  return reference_solve(set, logistic_stats(set, c), c.intercept, Penalty{lambda, c.alpha}).objective;
}

}  // namespace gyre_test
