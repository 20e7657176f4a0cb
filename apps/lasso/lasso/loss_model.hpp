// apps/lasso/lasso/loss_model.hpp — what the scheduled coordinate descent needs of its loss: the sums a round asks for, the step, the exact check.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "gyre/data/regression.hpp"
#include "gyre/rounds/rounds_protocol.hpp"
#include "lasso/checkpoint.hpp"
#include "lasso/column_stats.hpp"
#include "lasso/penalty.hpp"

namespace gyre::lasso {

// The loss-specific half of the control plane (round_scheduler.cpp holds the rest: sampling,
// the dependency check, the rounds, the λ path, adaptive batch and depth). Coefficients are in
// fit coordinates γ_j = β_j·s_j; "gradient" means the negative gradient of the data term in
// those coordinates (x̃_jᵀr̃/n for least squares), as coordinate_minimiser() takes it.
class LossModel {
 public:
  virtual ~LossModel() = default;

  // Parameter ids the workers accept: the p features, and an intercept id p if the loss keeps
  // one of its own.
  virtual std::uint32_t parameters() const = 0;
  // The round that asks for the scheduled coordinates' sums (a loss may add parameters of its
  // own, ids ≥ the features), and the sums a worker returns per parameter of it.
  virtual rounds::Task round_task(std::vector<std::uint32_t> coordinates) const = 0;
  virtual std::size_t sums_per_parameter(const rounds::Task& round) const = 0;
  // Sums a worker returns for a check, and the check's scalar (called with every step applied,
  // so a loss may recompute drifting state from `gamma`).
  virtual std::size_t check_size() const = 0;
  virtual double check_scalar(std::span<const double> gamma) = 0;

  struct Move {
    double gamma;     // the coordinate's new value
    double decrease;  // F's decrease the move makes, to second order
  };
  // A round's folded sums, before its coordinates step: what the loss's own parameters summed.
  virtual void begin_round(const rounds::Task&, std::span<const double>) {}
  // Coordinate j's step from its folded sums, taken at the round's scalar.
  virtual Move step(std::uint32_t j, double gamma, std::span<const double> sums, double scalar,
                    const Penalty& penalty) = 0;
  // Bookkeeping after coordinate j moved by beta_step on the original scale.
  virtual void stepped(std::uint32_t j, double beta_step) = 0;
  // Steps of the loss's own parameters that the round's steps imply.
  virtual std::vector<rounds::Step> end_round() { return {}; }

  // A check's folded sums (taken at `scalar`) become the loss's view of the exact iterate.
  virtual void read_check(std::span<const double> sums, double scalar) = 0;
  // The gradient of every usable coordinate at the last check (others 0).
  virtual const std::vector<double>& gradients() const = 0;
  virtual Certificate certify(std::span<const double> gamma, const Penalty& penalty) const = 0;
  // The step coordinate j would take from the last check.
  virtual double predicted_step(std::uint32_t j, double gamma, const Penalty& penalty) const = 0;
  // A round that tightens the last check's certificate (RoundKind::kDual: one more pass over
  // the rows), when `certified` (certify()'s) fails the tolerance only by what the round can
  // remove; nullopt when it cannot help. refine() reads the round's folded sums.
  virtual std::optional<rounds::Task> refinement(const Certificate&, const Penalty&, double) const {
    return std::nullopt;
  }
  virtual std::size_t refinement_size() const { return 0; }
  virtual Certificate refine(const Certificate& certified, std::span<const double>, const Penalty&) const {
    return certified;
  }
  // A worker's cycle (RoundKind::kCycle) over the active coordinates also moves these of the
  // loss's own parameters; adopt() takes their values back from it.
  virtual std::vector<std::uint32_t> cycled_own_parameters() const { return {}; }
  virtual void adopt(std::uint32_t, double) {}
  // Steps of the parameters the rounds do not schedule (a logistic intercept), from the last
  // check: taken before the rounds after it. At the start, a non-empty answer asks for another
  // check before the path begins.
  virtual std::vector<rounds::Step> unscheduled_steps(bool at_start) = 0;
  // The intercept on the original scale.
  virtual double intercept() const = 0;

  // Checkpoints: what the loss keeps between checks (what the last one read, what the steps
  // since moved), restored into a model made for the same data.
  virtual void save(StateWriter& out) const = 0;
  virtual void restore(StateReader& in) = 0;
};

// Least squares on centred columns: workers keep the residual (ResidualShard).
std::unique_ptr<LossModel> squared_loss_model(const ColumnStats& stats);
// The logistic loss: workers keep the margins (MarginShard). With `intercept`, the intercept is
// parameter p, stepped by Newton at every check (glmnet steps it once per cycle), and a column
// whose mean dwarfs its spread steps along itself centred by its current weighted mean, the
// intercept moving with it (see logistic_loss_model.cpp).
std::unique_ptr<LossModel> logistic_loss_model(const ColumnStats& stats,
                                               bool intercept);

}  // namespace gyre::lasso
