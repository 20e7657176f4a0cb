// apps/lasso/lasso/lasso_rounds.hpp — Lasso's control plane as a rounds app: what it sends next, what each pull moves.
#pragma once

#include <chrono>
#include <cmath>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <vector>

#include "gyre/rounds/scheduling.hpp"
#include "gyre/rounds/rounds.hpp"
#include "lasso/checkpoint.hpp"
#include "lasso/config.hpp"
#include "lasso/lambda_path.hpp"
#include "lasso/loss_model.hpp"
#include "lasso/pace.hpp"
#include "lasso/round_scheduler.hpp"
#include "lasso/round_stages.hpp"

namespace gyre::lasso {

// The Lasso control plane as a rounds app: per λ, intervals of rounds of scheduled
// coordinates (Jacobi steps from the summed partials), each interval ended by an exact check
// (a full gradient) that certifies the iterate and re-prioritises the coordinates. What the
// sums are and how a coordinate steps is the loss's (LossModel). What it sends next is one
// Stage (round_stages.hpp); schedule() and check_task() act on it, the pulls move it:
//
//   kStart ─check→ (λ_max) ─→ per λ: decide ─→ kRefine ─refinement→ decide
//                                        ├──→ kCycle ─cycle→ kCheck ─check→ decide
//                                        ├──→ kRounds ─rounds…→ (interval over) kCheck ─check→ decide
//                                        └──→ next λ, or kDone
class LassoRounds {
 public:
  using Clock = std::chrono::steady_clock;
  using Next = rounds::Next;
  using Step = rounds::Step;
  using Task = rounds::Task;

  LassoRounds(rounds::RoundsDriver& driver, LossModel& loss, const SchedulerData& data,
              const LassoConfig& config, std::function<void(const CheckReport&)> on_check,
              const Checkpoints* checkpoints);

  int depth() const { return pace_.depth(); }

  std::size_t partial_size(const Task& task) const;

  Next schedule();

  // Every step so far is applied (a refinement follows its check with no step between). The
  // stage stays what it was only at the start, until the pull has λ_max.
  Task check_task();

  // The interval's next round of scheduled coordinates, or its end in a check.
  Next next_round();

  std::vector<Step> pull(const Task& task, std::span<const double> sums);

  LassoRun result() && { return std::move(path_).result(); }

  // The scheduler's part of a checkpoint: everything the rounds to come depend on.
  void save(StateWriter& out) const;

  // Continues from a checkpoint save() wrote, taken between two checks: no round in flight,
  // no step queued, the workers' residuals restored from their parts.
  void restore(StateReader& in);

 private:
  // A checkpoint's stage byte: between two checks of a λ, as version 1 wrote it.
  static constexpr std::uint8_t kSavedBetweenChecks = 1;

  // 1/‖x_j − μ_j‖·√n, the scale of the dependency check's correlations.
  static std::vector<double> inverse_norms(const ColumnStats& stats) {
    std::vector<double> out(stats.features(), 0.0);
    for (std::uint32_t j = 0; j < stats.features(); ++j)
      if (stats.usable[j]) out[j] = 1.0 / (std::sqrt(stats.curvature[j]) * stats.scale[j]);
    return out;
  }

  double seconds() const { return std::chrono::duration<double>(Clock::now() - start_).count(); }
  const Penalty& penalty() const { return path_.penalty(); }
  Spent spent() const { return {updates_, rounds(), checks_}; }
  // Rounds of coordinates and checks over the run's life (Snapshots::rounds).
  std::uint64_t rounds() const { return snapshots_.rounds(driver_.rounds_sent()); }

  // Every worker's part is written (each answered after writing it): the scheduler's, then the
  // manifest that makes the checkpoint whole.
  void write_snapshot(std::uint64_t number);

  // Jacobi steps for the round's coordinates, from sums taken on the workers' state at its send
  // time (and the task's scalar). Returns the largest decrease of F one of them made (to second
  // order).
  double pull_partials(const Task& task, std::span<const double> sums);

  void pull_check(const Task& task, std::span<const double> sums);

  // glmnet's active set: the coordinates that are not zero and those the last check found
  // violating their KKT condition at zero; after a cycle that moved nothing, every coordinate.
  Task cycle_task() const;

  // The worker's coefficients after its cycle; an exact check follows.
  void pull_cycle(const Task& task, std::span<const double> values);

  void start_path();

  // The check that ended the previous λ (or the start) holds the exact gradient of this β.
  void begin_lambda(std::size_t k);

  // After each exact check: is this λ done, or does another interval of rounds start?
  void decide();

  // `converged`: gap ≤ tol·F at the last check (else the update budget ran out).
  void finish_lambda(bool converged);

  void reprioritise();

  std::uint32_t nnz() const;

  void report();

  rounds::RoundsDriver& driver_;
  LossModel& loss_;
  const ColumnStats& stats_;
  const LassoConfig& config_;
  std::function<void(const CheckReport&)> on_check_;
  std::uint32_t p_;
  std::uint32_t usable_ = 0;
  std::vector<double> gamma_;
  std::vector<std::uint8_t> busy_;    // in flight, or unusable
  std::optional<rounds::WorkersInnerProducts> inner_products_;  // the dependency check's, asked of the workers
  std::optional<rounds::DependencyCheck> check_;  // for the rounds
  rounds::ParameterSampler sampler_;
  Pace pace_;
  std::uint64_t check_every_ = 1, max_updates_ = 1;
  std::vector<Step> pending_;           // steps pulled since the last round was sent
  std::uint64_t updates_ = 0, checks_ = 0;
  Clock::time_point start_;

  Stage stage_ = Stage::kStart;
  LambdaPath path_;
  Certificate certificate_;             // of the last check
  double last_objective_ = 0;
  Interval interval_;                   // the rounds between two checks
  std::uint64_t nonzero_ = 0;           // coefficients ≠ 0: an interval updates at least as many
  // A round that tightens the last check's certificate (kRefine, LossModel::refinement);
  // refined_ once it is pulled: decide() then takes the certificate as it is.
  std::optional<Task> refinement_;
  bool refined_ = false;
  // Active-set cycles on the worker (cycles_: one worker, and the loss has them), each followed
  // by a check.
  bool cycles_ = false;
  int stalled_ = 0;  // cycles in a row that moved nothing
  static constexpr std::uint32_t kStateVersion = 1;
  Snapshots snapshots_;
};

}  // namespace gyre::lasso
