// apps/lasso/lasso/config.hpp — what a Lasso / elastic-net job solves and how it schedules the coordinates.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "gyre/rounds/scheduling.hpp"

namespace gyre::lasso {

// cyclic, random, or priority (STRADS: ∝ |Δβ_j| + η, uniform during the warm-up).
using ScheduleKind = rounds::ParameterOrder;

ScheduleKind parse_schedule(const std::string& name);  // throws std::invalid_argument
const char* schedule_name(ScheduleKind kind) noexcept;

// What the data term of F is: least squares (Lasso, elastic net) or the logistic loss of
// labels 0/1 (sparse logistic regression, glmnet's binomial family; see logistic.hpp).
enum class Loss { squared, logistic };
Loss parse_loss(const std::string& name);  // throws std::invalid_argument

// How the workers share the coordinates and the residual.
enum class ComputationModel {
  kRounds,     // STRADS: workers hold row shards; a scheduler sends rounds of coordinates (the default)
  kAllreduce,  // Harp's C: workers hold column sets and a replica of the residual; each round every
               // worker sweeps its own coordinates, then the residual's changes are summed
  kNoSync,     // Harp's D: the same sweeps, each worker pushing its changes and adding the peers'
               // as they arrive, waiting for them only at a check (column_models.hpp)
};
// "rounds", "C"/"allreduce", "D"/"nosync"; throws std::invalid_argument naming what is expected.
ComputationModel parse_computation_model(const std::string& name);
const char* name_of(ComputationModel model) noexcept;

// Minimises, over β and (with `intercept`) b,
//   F(β, b) = 1/(2n)·‖y − Xβ − b‖² + λ·(α·‖β‖₁ + (1−α)/2·‖β‖²)
// as scikit-learn's ElasticNet and glmnet's gaussian family do; with Loss::logistic the data
// term is (1/n)·Σ_i log(1 + e^{m_i}) − y_i·m_i, m = Xβ + b, y ∈ {0, 1} (glmnet's binomial). With `standardize` the
// columns are scaled to unit (population) standard deviation for the fit, the penalty applies
// to the scaled coefficients, and β is reported on the original scale (glmnet's convention).
struct LassoConfig {
  // The λ values to solve, decreasing, each warm-started from the previous solution. Empty:
  // a glmnet-style path of `path_length` values from λ_max down to λ_max·lambda_ratio.
  std::vector<double> lambdas;
  int path_length = 1;                 // with empty `lambdas`
  double lambda_ratio = 0;             // 0: 1e-4 if samples > features, else 1e-2 (glmnet)
  double alpha = 1.0;                  // the L1 share of the penalty; 1 = Lasso
  bool intercept = true;
  bool standardize = false;
  Loss loss = Loss::squared;
  ComputationModel model = ComputationModel::kRounds;

  ScheduleKind schedule = ScheduleKind::priority;
  std::uint32_t batch = 0;             // U, coordinates per round; 0: chosen from the problem
  double rho = 0.1;                    // dependency check: drop candidates this correlated with a
                                       // kept or in-flight coordinate (≥ 1 turns it off)
  int depth = 2;                       // rounds in flight; 1 is fully synchronous
  double eta = 1e-6;                   // priority floor, relative to the largest step of now
  // Uniform sweeps before priority sampling starts (STRADS's warm-up). 0 by default: every λ
  // starts from an exact full gradient, whose predicted steps are better first priorities.
  double warmup_sweeps = 0;
  std::uint64_t seed = 1;

  // Stop a λ when the duality gap is at most tol·F (and report the KKT violation), checked on
  // the exact full gradient every `check_every` coordinate updates (0: once per features; under
  // the column models, every fourth sweep).
  double tol = 1e-7;
  std::uint64_t check_every = 0;
  std::uint64_t max_updates = 0;       // per λ; 0: 10 000 sweeps' worth

  int workers = 1;                     // P, each with a shard of the rows
  int threads = 1;                     // T per worker
  // With one worker (which then holds every row), the worker runs the coordinate descent
  // between checks itself, over glmnet's active set (see worker_cycles()).
  bool cycles = true;

  // Throws std::invalid_argument naming the first setting out of its range (every number must
  // be finite; λ > 0; 0 < α ≤ 1; counts within gyre's limits).
  void validate() const;
};

// Whether a job of `workers` workers runs active-set cycles on its worker instead of rounds of
// scheduled coordinates: one worker holds every row, so its coordinate descent is exact
// (Gauss–Seidel) and costs no message per round; with more, a worker sees only its shard.
bool worker_cycles(const LassoConfig& config, std::size_t workers) noexcept;

}  // namespace gyre::lasso
