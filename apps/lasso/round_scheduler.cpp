// apps/lasso/round_scheduler.cpp — Lasso's control plane on the rounds engine: Jacobi steps from the summed partials, exact checks, the λ path.
#include "lasso/round_scheduler.hpp"

#include <algorithm>
#include <cmath>
#include <deque>
#include <optional>
#include <string>
#include <utility>

#include "gyre/rounds/dependency_check.hpp"
#include "gyre/rounds/parameter_sampler.hpp"
#include "gyre/rounds/rounds.hpp"
#include "lasso/lasso_worker.hpp"
#include "lasso/loss_model.hpp"
#include "lasso/round_stages.hpp"

namespace gyre::lasso {

std::uint32_t default_batch(std::uint32_t usable_features) {
  return std::clamp<std::uint32_t>(usable_features / 16, 1, 1024);
}

namespace {

using Clock = std::chrono::steady_clock;
using scheduler::Next;
using scheduler::Step;
using scheduler::Task;

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
  LassoRounds(scheduler::RoundsDriver& driver, LossModel& loss, const SchedulerData& data,
              const LassoConfig& config, std::function<void(const CheckReport&)> on_check,
              const Checkpoints* checkpoints)
      : driver_(driver), loss_(loss), stats_(data.stats), config_(config), on_check_(std::move(on_check)),
        p_(stats_.features()), gamma_(p_, 0.0), busy_(p_, 0),
        sampler_(config.schedule, stats_.usable, config.eta, config.seed, config.warmup_sweeps), start_(data.started),
        snapshots_(checkpoints && checkpoints->target.store ? &checkpoints->target : nullptr) {
    for (std::uint32_t j = 0; j < p_; ++j) {
      if (stats_.usable[j]) ++usable_;
      else busy_[j] = 1;  // never proposed
    }
    batch_ = config.batch > 0 ? config.batch : default_batch(usable_);
    cycles_ = worker_cycles(config, driver.workers().size());
    if (!cycles_) {
      scheduler::InnerProducts* source = data.inner_products;
      if (!source) source = &inner_products_.emplace(driver, kInnerProductKinds, p_);
      check_.emplace(*source, stats_.samples, stats_.mean, inverse_norms(stats_), config.rho);
    }
    depth_ = std::max(1, config.depth);
    check_every_ = config.check_every > 0 ? config.check_every : std::max<std::uint64_t>(usable_, 1);
    max_updates_ = config.max_updates > 0 ? config.max_updates : 10000 * std::max<std::uint64_t>(usable_, 1);
  }

  int depth() const { return depth_; }

  std::size_t partial_size(const Task& task) const {
    switch (static_cast<RoundKind>(task.kind)) {
      case RoundKind::kCheck: return loss_.check_size();
      case RoundKind::kDual: return loss_.refinement_size();
      case RoundKind::kCycle: return task.params.size() + 1;
      case RoundKind::kSnapshot: return 1;
      default: return loss_.sums_per_parameter(task) * task.params.size();
    }
  }

  Next schedule() {
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

  // Every step so far is applied (a refinement follows its check with no step between). The
  // stage stays what it was only at the start, until the pull has λ_max.
  Task check_task() {
    if (snapshots_.due(stage_)) return snapshots_.task();
    const Stage sending = stage_;
    if (stage_ != Stage::kStart) stage_ = Stage::kRounds;  // until the pull decides
    if (sending == Stage::kRefine) return *std::exchange(refinement_, std::nullopt);
    if (sending == Stage::kCycle) return cycle_task();
    return Task{static_cast<std::uint8_t>(RoundKind::kCheck), loss_.check_scalar(gamma_), {}};
  }

  // The interval's next round of scheduled coordinates, or its end in a check.
  Next next_round() {
    if (interval_.take_end(check_every_)) {
      if (interval_.coordinates_sent() > 0) {
        stage_ = Stage::kCheck;
        return Next::check();
      }
      finish_lambda(false);  // no coordinate can move: the budget cannot buy more
      return schedule();
    }
    const std::vector<std::uint32_t> candidates = sampler_.propose(batch_, busy_);
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

  std::vector<Step> pull(const Task& task, std::span<const double> sums) {
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
      certificate_ = loss_.refine(certificate_, sums, penalty_);
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
    interval_.pulled(pull_partials(task, sums), depth_);
    if (config_.schedule == ScheduleKind::priority && !sampler_.warming_up() &&
        interval_.coordinates_sent() >= std::max<std::uint64_t>(batch_, nonzero_) &&
        interval_.largest_recent() <= config_.tol * certificate_.objective)
      interval_.end();
    return std::exchange(pending_, {});
  }

  LassoRun result() && { return std::move(run_); }

  // The scheduler's part of a checkpoint: everything the rounds to come depend on.
  void save(StateWriter& out) const {
    out.put(kStateVersion);
    out.put(snapshots_.checks_reported());
    out.put(rounds());
    out.put(seconds());
    out.put(std::chrono::duration<double>(Clock::now() - began_).count());
    out.put_all(gamma_);
    out.put(batch_);
    out.put(depth_);
    out.put(updates_);
    out.put(checks_);
    out.put(kSavedBetweenChecks);
    out.put(run_.lambda_max);
    out.put<std::uint64_t>(run_.path.size());
    for (const LambdaSolution& s : run_.path) {
      out.put(s.lambda);
      out.put_all(s.beta);
      out.put(s.intercept);
      out.put(s.certificate);
      out.put<std::uint8_t>(s.converged);
      out.put(s.updates);
      out.put(s.rounds);
      out.put(s.checks);
      out.put(s.seconds);
    }
    out.put_all(lambdas_);
    out.put<std::uint64_t>(lambda_index_);
    out.put(certificate_);
    out.put(last_objective_);
    out.put(updates_before_);
    out.put(rounds_before_);
    out.put(checks_before_);
    out.put(interval_.coordinates_sent());
    out.put<std::uint8_t>(interval_.over());
    out.put(nonzero_);
    out.put<std::uint8_t>(stage_ == Stage::kCycle);
    out.put<std::uint8_t>(stage_ == Stage::kCheck);
    out.put(stalled_);
    out.put_all(interval_.recent());
    const scheduler::ParameterSampler::State sampler = sampler_.state();
    out.put(sampler.rng);
    out.put_all(sampler.order);
    out.put(sampler.cursor);
    out.put(sampler.proposed);
    out.put(sampler.largest_step);
    out.put_all(sampler.weights);
    out.put_all(sampler.held);
    out.put_all(sampler.deferred);
    loss_.save(out);
  }

  // Continues from a checkpoint save() wrote, taken between two checks: no round in flight,
  // no step queued, the workers' residuals restored from their parts.
  void restore(StateReader& in) {
    if (in.get<std::uint32_t>() != kStateVersion) in.fail("a gyre-lasso scheduler state of version 1");
    const auto reported = in.get<std::uint64_t>();
    snapshots_.resume(reported, in.get<std::uint64_t>());
    const auto now = Clock::now();
    start_ = now - std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(in.get<double>()));
    began_ = now - std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(in.get<double>()));
    gamma_ = in.get_all<double>(p_, "the coefficients");
    batch_ = in.get<std::uint32_t>();
    depth_ = in.get<int>();
    updates_ = in.get<std::uint64_t>();
    checks_ = in.get<std::uint64_t>();
    if (in.get<std::uint8_t>() != kSavedBetweenChecks || batch_ < 1 || depth_ < 1)
      in.fail("a scheduler between the checks of a λ");
    run_.lambda_max = in.get<double>();
    const auto solved = in.get<std::uint64_t>();
    if (solved > config_.lambdas.size() + static_cast<std::uint64_t>(std::max(1, config_.path_length)))
      in.fail("at most as many solutions as λs");
    run_.path.assign(solved, {});
    for (LambdaSolution& s : run_.path) {
      s.lambda = in.get<double>();
      s.beta = in.get_all<double>(p_, "a solution's coefficients");
      s.intercept = in.get<double>();
      s.certificate = in.get<Certificate>();
      s.converged = in.get<std::uint8_t>() != 0;
      s.updates = in.get<std::uint64_t>();
      s.rounds = in.get<std::uint64_t>();
      s.checks = in.get<std::uint64_t>();
      s.seconds = in.get<double>();
    }
    lambdas_ = in.get_all<double>();
    lambda_index_ = in.get<std::uint64_t>();
    if (lambda_index_ >= lambdas_.size() || run_.path.size() != lambda_index_)
      in.fail("a λ path position within the path");
    penalty_ = Penalty{lambdas_[lambda_index_], config_.alpha};
    certificate_ = in.get<Certificate>();
    last_objective_ = in.get<double>();
    updates_before_ = in.get<std::uint64_t>();
    rounds_before_ = in.get<std::uint64_t>();
    checks_before_ = in.get<std::uint64_t>();
    const auto sent = in.get<std::uint64_t>();
    const bool over = in.get<std::uint8_t>() != 0;
    nonzero_ = in.get<std::uint64_t>();
    const bool cycle_next = in.get<std::uint8_t>() != 0, check_next = in.get<std::uint8_t>() != 0;
    if (cycle_next && check_next) in.fail("a scheduler that sends either a cycle or a check next");
    stage_ = cycle_next ? Stage::kCycle : check_next ? Stage::kCheck : Stage::kRounds;
    stalled_ = in.get<int>();
    interval_.restore(sent, over, in.get_all<double>());
    scheduler::ParameterSampler::State sampler;
    sampler.rng = in.get<std::uint64_t>();
    sampler.order = in.get_all<std::uint32_t>();
    sampler.cursor = in.get<std::uint32_t>();
    sampler.proposed = in.get<std::uint64_t>();
    sampler.largest_step = in.get<double>();
    sampler.weights = in.get_all<double>();
    sampler.held = in.get_all<double>();
    sampler.deferred = in.get_all<std::uint32_t>();
    try {
      sampler_.restore(sampler);
    } catch (const std::invalid_argument& e) {
      in.fail(std::string("a sampler of this run's features (") + e.what() + ")");
    }
    loss_.restore(in);
  }

 private:
  // A checkpoint's stage byte: between two checks of a λ, as version 1 wrote it.
  static constexpr std::uint8_t kSavedBetweenChecks = 1;
  // The most an interval may multiply F before the solve is taken to have diverged.
  static constexpr double kMaxGrowth = 10;

  // 1/‖x_j − μ_j‖·√n, the scale of the dependency check's correlations.
  static std::vector<double> inverse_norms(const ColumnStats& stats) {
    std::vector<double> out(stats.features(), 0.0);
    for (std::uint32_t j = 0; j < stats.features(); ++j)
      if (stats.usable[j]) out[j] = 1.0 / (std::sqrt(stats.curvature[j]) * stats.scale[j]);
    return out;
  }

  double seconds() const { return std::chrono::duration<double>(Clock::now() - start_).count(); }
  // Rounds of coordinates and checks over the run's life (Snapshots::rounds).
  std::uint64_t rounds() const { return snapshots_.rounds(driver_.rounds_sent()); }

  // Every worker's part is written (each answered after writing it): the scheduler's, then the
  // manifest that makes the checkpoint whole.
  void write_snapshot(std::uint64_t number) {
    const int P = static_cast<int>(driver_.workers().size());
    StateWriter out;
    save(out);
    const CheckpointTarget& target = snapshots_.target();
    target.store->write_part(number, P, out.bytes());
    target.store->commit(checkpoint::Manifest{number, P + 1, target.settings, manifest_state(number), {}});
  }

  // Jacobi steps for the round's coordinates, from sums taken on the workers' state at its send
  // time (and the task's scalar). Returns the largest decrease of F one of them made (to second
  // order).
  double pull_partials(const Task& task, std::span<const double> sums) {
    const std::size_t width = loss_.sums_per_parameter(task);
    loss_.begin_round(task, sums);
    double largest = 0;
    for (std::size_t f = 0; f < task.params.size(); ++f) {
      const std::uint32_t j = task.params[f];
      if (j >= p_) continue;  // the loss's own
      const LossModel::Move move = loss_.step(j, gamma_[j], sums.subspan(f * width, width), task.scalar, penalty_);
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

  void pull_check(const Task& task, std::span<const double> sums) {
    loss_.read_check(sums, task.scalar);
    ++checks_;
    if (stage_ == Stage::kStart) {
      // A loss may need the first check to place what the rounds do not schedule.
      std::vector<Step> placed = loss_.unscheduled_steps(true);
      if (placed.empty()) return start_path();
      pending_.insert(pending_.end(), placed.begin(), placed.end());
      return;
    }
    certificate_ = loss_.certify(gamma_, penalty_);
    // Steps from stale sums can overshoot on correlated columns: if an interval made F
    // worse, halve the batch (then the depth) until it no longer does. An interval that
    // multiplied F (or left it no number) went past what shrinking repairs: the iterate is
    // then far from any solution and only climbs, so the solve stops and says why.
    const double before = last_objective_, now = certificate_.objective;
    if (!(now <= before * kMaxGrowth))
      throw std::runtime_error(
          "the solve diverged at lambda " + std::to_string(penalty_.lambda) + ": one interval of rounds took the "
          "objective from " + std::to_string(before) + " to " + std::to_string(now) + " (batch " +
          std::to_string(batch_) + ", depth " + std::to_string(depth_) + ", --rho " + std::to_string(config_.rho) +
          "); steps from stale sums overshoot on correlated columns: a smaller --batch or --depth, or the "
          "dependency check (--rho below 1), keeps them in bounds. No coefficients are written");
    if (now > before * (1 + 1e-12)) {
      if (batch_ > 1) batch_ = std::max<std::uint32_t>(1, batch_ / 2);
      else depth_ = std::max(1, depth_ / 2);
    }
    last_objective_ = certificate_.objective;
    decide();
  }

  // glmnet's active set: the coordinates that are not zero and those the last check found
  // violating their KKT condition at zero; after a cycle that moved nothing, every coordinate.
  Task cycle_task() const {
    const std::vector<double>& gradients = loss_.gradients();
    std::vector<std::uint32_t> active;
    for (std::uint32_t j = 0; j < p_; ++j)
      if (stats_.usable[j] && (stalled_ > 0 || gamma_[j] != 0 || std::abs(gradients[j]) > penalty_.l1()))
        active.push_back(j);
    for (const std::uint32_t own : loss_.cycled_own_parameters()) active.push_back(own);
    return Task{static_cast<std::uint8_t>(RoundKind::kCycle), penalty_.lambda, std::move(active)};
  }

  // The worker's coefficients after its cycle; an exact check follows.
  void pull_cycle(const Task& task, std::span<const double> values) {
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

  // λ_max: at β = 0 every gradient is at most λα exactly when λ ≥ max|g_j|/α.
  void start_path() {
    const std::vector<double>& gradients = loss_.gradients();
    for (std::uint32_t j = 0; j < p_; ++j) run_.lambda_max = std::max(run_.lambda_max, std::abs(gradients[j]));
    run_.lambda_max /= config_.alpha;
    lambdas_ = config_.lambdas;
    if (lambdas_.empty()) {
      const int n = std::max(1, config_.path_length);
      double ratio = config_.lambda_ratio;
      if (ratio <= 0) ratio = stats_.samples > usable_ ? 1e-4 : 1e-2;
      for (int k = 0; k < n; ++k)
        lambdas_.push_back(run_.lambda_max * (n == 1 ? ratio : std::pow(ratio, static_cast<double>(k) / (n - 1))));
    }
    begin_lambda(0);
  }

  // The check that ended the previous λ (or the start) holds the exact gradient of this β.
  void begin_lambda(std::size_t k) {
    if (k == lambdas_.size()) {
      stage_ = Stage::kDone;
      return;
    }
    const double lambda = lambdas_[k];
    if (!(lambda > 0) || !std::isfinite(lambda)) throw std::invalid_argument("lambda must be positive");
    lambda_index_ = k;
    penalty_ = Penalty{lambda, config_.alpha};
    began_ = Clock::now();
    updates_before_ = updates_;
    rounds_before_ = rounds();
    checks_before_ = checks_;
    certificate_ = loss_.certify(gamma_, penalty_);
    last_objective_ = certificate_.objective;
    stage_ = Stage::kRounds;
    stalled_ = 0;
    decide();
  }

  // After each exact check: is this λ done, or does another interval of rounds start?
  void decide() {
    if (!std::exchange(refined_, false))
      if ((refinement_ = loss_.refinement(certificate_, penalty_, config_.tol))) {
        stage_ = Stage::kRefine;  // its pull decides
        return;
      }
    report();
    const bool converged = certificate_.duality_gap <= config_.tol * certificate_.objective;
    // Cycles over every coordinate that move nothing: rounding has the last word.
    if (converged || updates_ - updates_before_ >= max_updates_ || stalled_ >= 2) {
      finish_lambda(converged);
      return;
    }
    if (!cycles_) reprioritise();  // the rounds' priorities; cycles take the active set instead
    const std::vector<Step> unscheduled = loss_.unscheduled_steps(false);
    pending_.insert(pending_.end(), unscheduled.begin(), unscheduled.end());
    stage_ = cycles_ ? Stage::kCycle : Stage::kRounds;
    interval_.reset();
  }

  // `converged`: gap ≤ tol·F at the last check (else the update budget ran out).
  void finish_lambda(bool converged) {
    LambdaSolution out;
    out.lambda = penalty_.lambda;
    out.converged = converged;
    out.certificate = certificate_;
    out.beta.resize(p_);
    for (std::uint32_t j = 0; j < p_; ++j) out.beta[j] = gamma_[j] / stats_.scale[j];
    out.intercept = loss_.intercept();
    out.updates = updates_ - updates_before_;
    out.rounds = rounds() - rounds_before_;
    out.checks = checks_ - checks_before_;
    out.seconds = std::chrono::duration<double>(Clock::now() - began_).count();
    run_.path.push_back(std::move(out));
    begin_lambda(lambda_index_ + 1);
  }

  void reprioritise() {
    std::vector<double> predicted(p_, 0.0);
    for (std::uint32_t j = 0; j < p_; ++j)
      if (stats_.usable[j])
        predicted[j] = loss_.predicted_step(j, gamma_[j], penalty_);
    sampler_.reprioritise(predicted);
  }

  std::uint32_t nnz() const {
    return static_cast<std::uint32_t>(std::count_if(gamma_.begin(), gamma_.end(), [](double g) { return g != 0; }));
  }

  void report() {
    const Certificate& c = certificate_;
    // Every check passes here: a coefficient vector that is no longer numbers stops the solve
    // before anything is written (the readers and the sums' checks make this a last resort).
    if (!std::isfinite(c.objective) || !std::isfinite(c.duality_gap))
      throw std::runtime_error("the objective at lambda " + std::to_string(penalty_.lambda) + " is " +
                               std::to_string(c.objective) + "; no coefficients are written");
    snapshots_.reported();
    if (!on_check_) return;
    CheckReport r;
    r.lambda_index = static_cast<int>(lambda_index_);
    r.lambda = penalty_.lambda;
    r.round = rounds();
    r.seconds = seconds();
    r.certificate = c;
    r.nnz = nnz();
    r.updates = updates_;
    r.batch = batch_;
    r.depth = depth_;
    r.check = snapshots_.checks_reported();
    on_check_(r);
  }

  scheduler::RoundsDriver& driver_;
  LossModel& loss_;
  const ColumnStats& stats_;
  const LassoConfig& config_;
  std::function<void(const CheckReport&)> on_check_;
  std::uint32_t p_;
  std::uint32_t usable_ = 0;
  std::vector<double> gamma_;
  std::vector<std::uint8_t> busy_;    // in flight, or unusable
  std::optional<scheduler::WorkersInnerProducts> inner_products_;  // the dependency check's, asked of the workers
  std::optional<scheduler::DependencyCheck> check_;  // for the rounds
  scheduler::ParameterSampler sampler_;
  std::uint32_t batch_ = 1;
  int depth_ = 1;
  std::uint64_t check_every_ = 1, max_updates_ = 1;
  std::vector<Step> pending_;           // steps pulled since the last round was sent
  std::uint64_t updates_ = 0, checks_ = 0;
  Clock::time_point start_;

  Stage stage_ = Stage::kStart;
  LassoRun run_;
  std::vector<double> lambdas_;
  // The λ being solved.
  std::size_t lambda_index_ = 0;
  Penalty penalty_;
  Certificate certificate_;             // of the last check
  double last_objective_ = 0;
  Clock::time_point began_;
  std::uint64_t updates_before_ = 0, rounds_before_ = 0, checks_before_ = 0;
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

}  // namespace

LassoRun run_lasso_scheduler(runtime::Mailbox& mailbox, std::vector<int> workers, const SchedulerData& data,
                             const LassoConfig& config, std::function<void(const CheckReport&)> on_check,
                             std::chrono::milliseconds timeout, const Checkpoints* checkpoints) {
  const std::unique_ptr<LossModel> loss = config.loss == Loss::logistic
                                              ? logistic_loss_model(data.stats, config.intercept)
                                              : squared_loss_model(data.stats);
  scheduler::RoundsDriver driver(mailbox, std::move(workers), rounds_options(loss->parameters(), timeout));
  LassoRounds app(driver, *loss, data, config, std::move(on_check), checkpoints);
  if (checkpoints && checkpoints->resume) {
    try {
      const OpenedPart part = open_part(*checkpoints->resume, static_cast<int>(driver.workers().size()));
      StateReader in = part.reader();
      app.restore(in);
      in.finish();
    } catch (const std::exception& e) {
      driver.fail(std::string("lasso scheduler: resuming: ") + e.what());
    }
  }
  scheduler::run_rounds(driver, app);
  return std::move(app).result();
}

}  // namespace gyre::lasso
