// tests/apps/lasso/lasso_checks.hpp — planted problems, and the optimality of a Lasso solution computed straight from the data (not from the solver's state).
#pragma once

#include <algorithm>
#include <cmath>
#include <vector>

#include <chrono>
#include <exception>
#include <string>

#include "gyre/data/planted_regression.hpp"
#include "gyre/data/regression.hpp"
#include "gyre/net/group.hpp"
#include "gyre/runtime/job.hpp"
#include "lasso/config.hpp"

namespace gyre_test {

// A planted sparse problem (support 8, noise 0.1) of `nnz` non-zeros a row, features in groups
// of the given correlation.
inline gyre::data::PlantedRegression planted_problem(std::uint64_t samples, std::uint32_t features, std::uint32_t nnz,
                                                     double correlation, std::uint64_t seed = 7) {
  gyre::data::PlantedRegressionOptions o;
  o.samples = samples;
  o.features = features;
  o.nnz_per_row = nnz;
  o.support = 8;
  o.correlation = correlation;
  o.noise = 0.1;
  o.seed = seed;
  return gyre::data::generate_planted_regression(o);
}

// What `solve(job, options)` fails with when worker 1's links are cut after 5 messages (and a
// member waits at most 20 s): the text of the failure whichever member noticed it first — the
// cut worker's own send, or a peer that lost it. Empty if nothing failed.
template <class Solve>
std::string failure_with_worker_1_cut(gyre::runtime::Job job, Solve solve) {
  gyre::net::FaultSpec faults;
  faults.close_after = 5;
  job.faults[1] = faults;
  try {
    solve(job, std::chrono::milliseconds(20000));
  } catch (const std::exception& e) {
    return e.what();
  }
  return {};
}

// The largest violation of the elastic-net KKT conditions, in the fit's (centred, scaled)
// coordinates and per sample: with g_j = x̃_jᵀr̃/n, r̃ = y − Xβ − b,
//   β_j = 0:  |g_j| ≤ λα;      β_j ≠ 0:  g_j − λ(1−α)γ_j = λα·sign(β_j).
// Also checks that b is the best intercept (Σ r̃ = 0) when there is one.
inline double kkt_violation(const gyre::data::RegressionSet& set, const gyre::lasso::LassoConfig& c, double lambda,
                            const std::vector<double>& beta, double intercept) {
  const std::size_t n = set.samples(), m = set.features;
  std::vector<double> r(n);
  double sum_r = 0;
  for (std::size_t i = 0; i < n; ++i) {
    double fit = intercept;
    const auto cols = set.row_cols(i);
    const auto vals = set.row_values(i);
    for (std::size_t e = 0; e < cols.size(); ++e) fit += vals[e] * beta[cols[e]];
    r[i] = set.y[i] - fit;
    sum_r += r[i];
  }
  std::vector<double> mean(m, 0.0), dot(m, 0.0), sq(m, 0.0);
  for (std::size_t i = 0; i < n; ++i) {
    const auto cols = set.row_cols(i);
    const auto vals = set.row_values(i);
    for (std::size_t e = 0; e < cols.size(); ++e) {
      mean[cols[e]] += vals[e] / static_cast<double>(n);
      dot[cols[e]] += vals[e] * r[i];
      sq[cols[e]] += vals[e] * vals[e];
    }
  }
  double worst = c.intercept ? std::abs(sum_r) / static_cast<double>(n) : 0.0;
  for (std::size_t j = 0; j < m; ++j) {
    const double mu = c.intercept ? mean[j] : 0.0;
    const double var = sq[j] / static_cast<double>(n) - mu * mu;
    if (var <= 1e-12) continue;
    const double s = c.standardize ? std::sqrt(var) : 1.0;
    // x̃_jᵀr̃ = x_jᵀr − μ_j·Σr (and Σr = 0 at the best intercept).
    const double g = (dot[j] - mu * sum_r) / static_cast<double>(n) / s;
    const double gamma = beta[j] * s;
    double v;
    if (gamma == 0) {
      v = std::max(0.0, std::abs(g) - lambda * c.alpha);
    } else {
      v = std::abs(g - lambda * (1 - c.alpha) * gamma - (gamma > 0 ? 1 : -1) * lambda * c.alpha);
    }
    worst = std::max(worst, v);
  }
  return worst;
}

}  // namespace gyre_test
