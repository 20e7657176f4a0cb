// apps/lasso/lasso_rounds.cpp — Lasso's rounds, checks, cycles and λ path: the stage each pull leads to.
#include "lasso/lasso_rounds.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <utility>

#include "lasso/lasso_worker.hpp"

namespace gyre::lasso {

using rounds::Next;
using rounds::Step;
using rounds::Task;

LassoRounds::LassoRounds(rounds::RoundsDriver& driver, LossModel& loss, const SchedulerData& data,
                         const LassoConfig& config, std::function<void(const CheckReport&)> on_check,
                         const Checkpoints* checkpoints)
    : driver_(driver), loss_(loss), stats_(data.stats), config_(config), on_check_(std::move(on_check)),
      p_(stats_.features()), gamma_(p_, 0.0), busy_(p_, 0),
      sampler_(config.schedule, stats_.usable, config.eta, config.seed, config.warmup_sweeps), pace_(1, 1),
      start_(data.started),
      snapshots_(checkpoints && checkpoints->target.store ? &checkpoints->target : nullptr) {
  for (std::uint32_t j = 0; j < p_; ++j) {
    if (stats_.usable[j]) ++usable_;
    else busy_[j] = 1;  // never proposed
  }
  pace_ = Pace(config.batch > 0 ? config.batch : default_batch(usable_), config.depth);
  cycles_ = worker_cycles(config, driver.workers().size());
  if (!cycles_) {
    rounds::InnerProducts* source = data.inner_products;
    if (!source) source = &inner_products_.emplace(driver, kInnerProductKinds, p_);
    check_.emplace(*source, stats_.samples, stats_.mean, inverse_norms(stats_), config.rho);
  }
  check_every_ = config.check_every > 0 ? config.check_every : std::max<std::uint64_t>(usable_, 1);
  max_updates_ = config.max_updates > 0 ? config.max_updates : 10000 * std::max<std::uint64_t>(usable_, 1);
}

std::size_t LassoRounds::partial_size(const Task& task) const {
  switch (static_cast<RoundKind>(task.kind)) {
    case RoundKind::kCheck: return loss_.check_size();
    case RoundKind::kDual: return loss_.refinement_size();
    case RoundKind::kCycle: return task.params.size() + 1;
    case RoundKind::kSnapshot: return 1;
    default: return loss_.sums_per_parameter(task) * task.params.size();
  }
}

Next LassoRounds::schedule() {
  if (snapshots_.due(stage_)) return Next::check();
  switch (stage_) {
    case Stage::kStart:
      if (!(config_.alpha > 0 && config_.alpha <= 1)) throw std::invalid_argument("alpha must be in (0, 1]");
      return Next::check();  // λ_max comes from the gradient at β = 0
    case Stage::kDone:
      return Next::stop();
    case Stage::kRefine:
    case Stage::kCycle:
    case Stage::kCheck:
      return Next::check();
    case Stage::kRounds:
      break;
  }
  return next_round();
}

Task LassoRounds::check_task() {
  if (snapshots_.due(stage_)) return snapshots_.task();
  const Stage sending = stage_;
  if (stage_ != Stage::kStart) stage_ = Stage::kRounds;  // until the pull decides
  if (sending == Stage::kRefine) return *std::exchange(refinement_, std::nullopt);
  if (sending == Stage::kCycle) return cycle_task();
  return Task{static_cast<std::uint8_t>(RoundKind::kCheck), loss_.check_scalar(gamma_), {}};
}

Next LassoRounds::next_round() {
  if (interval_.take_end(check_every_)) {
    if (interval_.coordinates_sent() > 0) {
      stage_ = Stage::kCheck;
      return Next::check();
    }
    finish_lambda(false);  // no coordinate can move: the budget cannot buy more
    return schedule();
  }
  const std::vector<std::uint32_t> candidates = sampler_.propose(pace_.batch(), busy_);
  std::vector<std::uint32_t> kept = check_->keep(candidates, busy_);
  if (kept.size() < candidates.size()) {
    std::vector<std::uint32_t> dropped;
    for (std::uint32_t j : candidates)
      if (!busy_[j]) dropped.push_back(j);
    sampler_.restore(dropped);
  }
  if (!kept.empty()) {
    interval_.sent(kept.size());
    return Next::send(loss_.round_task(std::move(kept)));
  }
  if (driver_.in_flight() > 0) return Next::wait();
  interval_.end();  // nothing to propose
  return schedule();
}

std::vector<Step> LassoRounds::pull(const Task& task, std::span<const double> sums) {
  if (static_cast<RoundKind>(task.kind) == RoundKind::kSnapshot) {
    write_snapshot(static_cast<std::uint64_t>(task.scalar));
    return {};
  }
  if (static_cast<RoundKind>(task.kind) == RoundKind::kCheck) {
    pull_check(task, sums);
    return std::exchange(pending_, {});  // the loss's unscheduled steps, if any
  }
  if (static_cast<RoundKind>(task.kind) == RoundKind::kCycle) {
    pull_cycle(task, sums);
    return {};  // the worker has taken its steps
  }
  if (static_cast<RoundKind>(task.kind) == RoundKind::kDual) {
    certificate_ = loss_.refine(certificate_, sums, penalty());
    refined_ = true;
    decide();
    return std::exchange(pending_, {});
  }
  // On the priority schedule the rounds hold the coordinates that still move; once even
  // their steps lower F by less than the tolerance, the active set has converged and only
  // an exact check can tell what else must move (glmnet's active-set cycle, driven by
  // priorities). Checks are one pass over the data, so this errs towards checking often,
  // but not before the interval has updated as many coordinates as are non-zero (a sweep of
  // the active set): on an ill-conditioned problem every single step is small long before
  // the sum of a sweep's is (a logistic path checked after every 1.5 updates without it).
  // The rounds in flight together are judged together: the one after a full round may
  // hold only the leftovers.
  interval_.pulled(pull_partials(task, sums), pace_.depth());
  if (config_.schedule == ScheduleKind::priority && !sampler_.warming_up() &&
      interval_.coordinates_sent() >= std::max<std::uint64_t>(pace_.batch(), nonzero_) &&
      interval_.largest_recent() <= config_.tol * certificate_.objective)
    interval_.end();
  return std::exchange(pending_, {});
}

void LassoRounds::write_snapshot(std::uint64_t number) {
  const int P = static_cast<int>(driver_.workers().size());
  StateWriter out;
  save(out);
  const CheckpointTarget& target = snapshots_.target();
  target.store->write_part(number, P, out.bytes());
  target.store->commit(checkpoint::Manifest{number, P + 1, target.settings, manifest_state(number), {}});
}

double LassoRounds::pull_partials(const Task& task, std::span<const double> sums) {
  const std::size_t width = loss_.sums_per_parameter(task);
  loss_.begin_round(task, sums);
  double largest = 0;
  for (std::size_t f = 0; f < task.params.size(); ++f) {
    const std::uint32_t j = task.params[f];
    if (j >= p_) continue;  // the loss's own
    const LossModel::Move move = loss_.step(j, gamma_[j], sums.subspan(f * width, width), task.scalar, penalty());
    const double delta = move.gamma - gamma_[j];
    busy_[j] = 0;
    check_->release(j);
    ++updates_;
    sampler_.step(j, delta);
    if (delta == 0) continue;
    largest = std::max(largest, move.decrease);
    nonzero_ += (move.gamma != 0) - (gamma_[j] != 0);
    gamma_[j] = move.gamma;
    const double beta_step = delta / stats_.scale[j];
    pending_.push_back({j, beta_step});
    loss_.stepped(j, beta_step);
  }
  const std::vector<Step> implied = loss_.end_round();
  pending_.insert(pending_.end(), implied.begin(), implied.end());
  return largest;
}

void LassoRounds::pull_check(const Task& task, std::span<const double> sums) {
  loss_.read_check(sums, task.scalar);
  ++checks_;
  if (stage_ == Stage::kStart) {
    // A loss may need the first check to place what the rounds do not schedule.
    std::vector<Step> placed = loss_.unscheduled_steps(true);
    if (placed.empty()) return start_path();
    pending_.insert(pending_.end(), placed.begin(), placed.end());
    return;
  }
  certificate_ = loss_.certify(gamma_, penalty());
  pace_.after_interval(last_objective_, certificate_.objective, penalty().lambda, config_.rho);
  last_objective_ = certificate_.objective;
  decide();
}

Task LassoRounds::cycle_task() const {
  const std::vector<double>& gradients = loss_.gradients();
  std::vector<std::uint32_t> active;
  for (std::uint32_t j = 0; j < p_; ++j)
    if (stats_.usable[j] && (stalled_ > 0 || gamma_[j] != 0 || std::abs(gradients[j]) > penalty().l1()))
      active.push_back(j);
  for (const std::uint32_t own : loss_.cycled_own_parameters()) active.push_back(own);
  return Task{static_cast<std::uint8_t>(RoundKind::kCycle), penalty().lambda, std::move(active)};
}

void LassoRounds::pull_cycle(const Task& task, std::span<const double> values) {
  bool moved = false;
  for (std::size_t f = 0; f < task.params.size(); ++f) {
    const std::uint32_t j = task.params[f];
    if (j >= p_) {
      loss_.adopt(j, values[f]);
      continue;
    }
    const double delta = values[f] - gamma_[j];
    if (delta == 0) continue;
    moved = true;
    nonzero_ += (values[f] != 0) - (gamma_[j] != 0);
    gamma_[j] = values[f];
  }
  updates_ += static_cast<std::uint64_t>(values.back());
  stalled_ = moved ? 0 : stalled_ + 1;
  stage_ = Stage::kCheck;
}

void LassoRounds::start_path() {
  path_.start(loss_.gradients(), config_, stats_, usable_);
  begin_lambda(0);
}

void LassoRounds::begin_lambda(std::size_t k) {
  if (!path_.begin(k, config_.alpha, spent())) {
    stage_ = Stage::kDone;
    return;
  }
  certificate_ = loss_.certify(gamma_, penalty());
  last_objective_ = certificate_.objective;
  stage_ = Stage::kRounds;
  stalled_ = 0;
  decide();
}

void LassoRounds::decide() {
  if (!std::exchange(refined_, false))
    if ((refinement_ = loss_.refinement(certificate_, penalty(), config_.tol))) {
      stage_ = Stage::kRefine;  // its pull decides
      return;
    }
  report();
  const bool converged = certificate_.duality_gap <= config_.tol * certificate_.objective;
  // Cycles over every coordinate that move nothing: rounding has the last word.
  if (converged || path_.updates_since_begin(updates_) >= max_updates_ || stalled_ >= 2) {
    finish_lambda(converged);
    return;
  }
  if (!cycles_) reprioritise();  // the rounds' priorities; cycles take the active set instead
  const std::vector<Step> unscheduled = loss_.unscheduled_steps(false);
  pending_.insert(pending_.end(), unscheduled.begin(), unscheduled.end());
  stage_ = cycles_ ? Stage::kCycle : Stage::kRounds;
  interval_.reset();
}

void LassoRounds::finish_lambda(bool converged) {
  LambdaSolution out;
  out.converged = converged;
  out.certificate = certificate_;
  out.beta.resize(p_);
  for (std::uint32_t j = 0; j < p_; ++j) out.beta[j] = gamma_[j] / stats_.scale[j];
  out.intercept = loss_.intercept();
  path_.finish(std::move(out), spent());
  begin_lambda(path_.index() + 1);
}

void LassoRounds::reprioritise() {
  std::vector<double> predicted(p_, 0.0);
  for (std::uint32_t j = 0; j < p_; ++j)
    if (stats_.usable[j])
      predicted[j] = loss_.predicted_step(j, gamma_[j], penalty());
  sampler_.reprioritise(predicted);
}

std::uint32_t LassoRounds::nnz() const {
  return static_cast<std::uint32_t>(std::count_if(gamma_.begin(), gamma_.end(), [](double g) { return g != 0; }));
}

void LassoRounds::report() {
  const Certificate& c = certificate_;
  // Every check passes here: a coefficient vector that is no longer numbers stops the solve
  // before anything is written (the readers and the sums' checks make this a last resort).
  if (!std::isfinite(c.objective) || !std::isfinite(c.duality_gap))
    throw std::runtime_error("the objective at lambda " + std::to_string(penalty().lambda) + " is " +
                             std::to_string(c.objective) + "; no coefficients are written");
  snapshots_.reported();
  if (!on_check_) return;
  CheckReport r;
  r.lambda_index = static_cast<int>(path_.index());
  r.lambda = penalty().lambda;
  r.round = rounds();
  r.seconds = seconds();
  r.certificate = c;
  r.nnz = nnz();
  r.updates = updates_;
  r.batch = pace_.batch();
  r.depth = pace_.depth();
  r.check = snapshots_.checks_reported();
  on_check_(r);
}

}  // namespace gyre::lasso
