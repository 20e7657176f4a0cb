// apps/lasso/round_scheduler.cpp — rounds in flight up to the depth, Jacobi steps from the summed partials, exact checks.
#include "lasso/round_scheduler.hpp"

#include <algorithm>
#include <cmath>
#include <deque>
#include <map>
#include <optional>
#include <string>

#include "gyre/scheduler/protocol.hpp"
#include "gyre/runtime/mailbox.hpp"
#include "gyre/wire/codec.hpp"
#include "lasso/coordinate_sampler.hpp"
#include "lasso/dependency_check.hpp"
#include "lasso/round_protocol.hpp"

namespace gyre::lasso {

std::uint32_t default_batch(std::uint32_t usable_features) {
  return std::clamp<std::uint32_t>(usable_features / 16, 1, 1024);
}

namespace {

using Clock = std::chrono::steady_clock;

class RoundScheduler {
 public:
  RoundScheduler(runtime::Mailbox& mailbox, std::vector<int> workers, const SchedulerData& data,
                 const LassoConfig& config, std::function<void(const CheckReport&)> on_check,
                 std::chrono::milliseconds timeout)
      : group_(mailbox.group()), mailbox_(mailbox), workers_(std::move(workers)), stats_(data.stats), config_(config),
        on_check_(std::move(on_check)), timeout_(timeout), p_(stats_.features()), gamma_(p_, 0.0),
        busy_(p_, 0), check_(data.rows, data.columns, stats_, config.rho),
        sampler_(config.schedule, stats_.usable, config.eta, config.seed, config.warmup_sweeps), start_(data.started) {
    for (std::uint32_t j = 0; j < p_; ++j) {
      if (stats_.usable[j]) ++usable_;
      else busy_[j] = 1;  // never proposed
    }
    batch_ = config.batch > 0 ? config.batch : default_batch(usable_);
    depth_ = std::max(1, config.depth);
    check_every_ = config.check_every > 0 ? config.check_every : std::max<std::uint64_t>(usable_, 1);
    max_updates_ = config.max_updates > 0 ? config.max_updates : 10000 * std::max<std::uint64_t>(usable_, 1);
  }

  LassoRun run() {
    LassoRun out;
    try {
      out = solve_path();
    } catch (const runtime::JobFailed&) {
      throw;
    } catch (const std::exception& e) {
      fail(std::string("lasso scheduler: ") + e.what());
    }
    for (int w : workers_) {
      net::Message m;
      m.type = scheduler::kStop;
      group_.send(w, std::move(m));
    }
    return out;
  }

 private:
  struct InFlight {
    std::uint64_t round = 0;
    double residual_mean = 0;              // m of the residual the sums are taken on
    std::vector<std::uint32_t> features;
    std::vector<double> sums;              // summed over the workers so far
    std::size_t replies = 0;
  };

  // Tells the workers, then throws: `rank` is the member at fault (this scheduler's own by default).
  [[noreturn]] void fail(const std::string& why, int rank = -2, runtime::FailureCause cause = runtime::FailureCause::kError) {
    runtime::fail_job(group_, workers_, runtime::JobFailed(rank == -2 ? group_.rank() : rank, cause, why));
  }
  [[noreturn]] void fail_from(int sender, const std::string& why) { fail(why, sender, runtime::FailureCause::kBadMessage); }

  double seconds() const { return std::chrono::duration<double>(Clock::now() - start_).count(); }
  double residual_mean() const { return -mu_dot_beta_; }

  // Sends a request carrying every step not yet sent.
  void send(std::uint64_t round, RoundKind kind, std::vector<std::uint32_t> features) {
    RoundRequest request;
    request.round = round;
    request.kind = kind;
    request.residual_mean = residual_mean();
    request.steps = std::move(pending_);
    pending_.clear();
    request.features = features;
    for (int w : workers_) group_.send(w, encode_request(request));
    const std::size_t values = kind == RoundKind::kCheck ? p_ + 2 : features.size();
    in_flight_.push_back(InFlight{round, residual_mean(), std::move(features), std::vector<double>(values, 0.0), 0});
  }

  // Waits until the oldest round has every worker's sums, and returns it. Each worker answers
  // in round order; replies that arrive ahead of their round are parked. A round's replies are
  // added in worker order, so the sums are the same bits whatever the arrival order.
  InFlight receive_oldest() {
    InFlight& oldest = in_flight_.front();
    const auto deadline = Clock::now() + timeout_;
    while (oldest.replies < workers_.size()) {
      if (fold_parked(oldest)) continue;
      std::optional<net::Message> m;
      try {
        m = mailbox_.receive([](const net::Message&) { return true; }, deadline);
      } catch (const runtime::JobFailed& e) {
        runtime::fail_job(group_, workers_, e);  // a worker's notice: pass it on to the others
      } catch (const net::GroupClosed& e) {
        fail(std::string("lasso scheduler: transport closed: ") + e.what(), -1, runtime::FailureCause::kPeerLost);
      }
      if (!m)
        fail("lasso scheduler: no sums for round " + std::to_string(oldest.round) + " from " +
                 missing_workers(oldest) + " within " + std::to_string(timeout_.count()) + " ms",
             workers_[oldest.replies], runtime::FailureCause::kTimeout);
      if (m->type != kRoundSums)
        fail_from(m->sender, "lasso scheduler: unexpected message type " + std::to_string(m->type) + " from rank " +
                                 std::to_string(m->sender));
      park(std::move(*m));
    }
    InFlight done = std::move(in_flight_.front());
    in_flight_.pop_front();
    return done;
  }

  // Sets a reply aside until its round is folded. Each worker answers each round in flight
  // once, so what is parked stays bounded by the rounds in flight; anything else fails the job.
  void park(net::Message m) {
    const std::string from = "lasso scheduler: rank " + std::to_string(m.sender);
    const auto worker = std::find(workers_.begin(), workers_.end(), m.sender);
    if (worker == workers_.end()) fail_from(m.sender, from + ", not a worker, sent sums");
    if (m.tag > in_flight_.back().round)
      fail_from(m.sender, from + " sent sums for round " + std::to_string(m.tag) + ", which has not been asked for");
    // Rounds before the oldest in flight have every worker's sums folded in already.
    const bool folded = m.tag < in_flight_.front().round ||
                        (m.tag == in_flight_.front().round &&
                         static_cast<std::size_t>(worker - workers_.begin()) < in_flight_.front().replies);
    const bool parked = std::any_of(parked_.begin(), parked_.end(), [&](const net::Message& p) {
      return p.sender == m.sender && p.tag == m.tag;
    });
    if (folded || parked) fail_from(m.sender, from + " sent sums for round " + std::to_string(m.tag) + " twice");
    parked_.push_back(std::move(m));
  }

  // Folds parked replies for `round` in worker order as far as they go; true if any was folded.
  bool fold_parked(InFlight& round) {
    bool folded = false;
    for (;;) {
      const int want = workers_[round.replies];
      auto it = std::find_if(parked_.begin(), parked_.end(), [&](const net::Message& m) {
        return m.sender == want && m.tag == round.round;
      });
      if (it == parked_.end()) return folded;
      RoundSums sums;
      try {
        sums = decode_sums(*it, round.sums.size());
      } catch (const std::exception& e) {
        fail_from(want, "lasso scheduler: bad sums from rank " + std::to_string(want) + ": " + e.what());
      }
      parked_.erase(it);
      if (sums.round != round.round) fail_from(want, "lasso scheduler: rank " + std::to_string(want) + " mislabelled its sums");
      for (std::size_t i = 0; i < sums.values.size(); ++i) round.sums[i] += sums.values[i];
      folded = true;
      if (++round.replies == workers_.size()) return true;
    }
  }

  std::string missing_workers(const InFlight& round) const {
    std::string out;
    for (std::size_t w = round.replies; w < workers_.size(); ++w) {
      bool have = std::any_of(parked_.begin(), parked_.end(), [&](const net::Message& m) {
        return m.sender == workers_[w] && m.tag == round.round;
      });
      if (!have) out += (out.empty() ? "rank " : ", rank ") + std::to_string(workers_[w]);
    }
    return out.empty() ? "no rank" : out;
  }

  // Jacobi steps for the round's coordinates, from sums taken on the residual of its send time.
  // Returns the largest decrease of F one of them made (to second order, curvature·Δγ²/2).
  double pull(const InFlight& round, const Penalty& penalty) {
    double largest = 0;
    for (std::size_t f = 0; f < round.features.size(); ++f) {
      const std::uint32_t j = round.features[f];
      const double g = stats_.gradient(j, round.sums[f], round.residual_mean);
      const double next = coordinate_minimiser(gamma_[j], g, stats_.curvature[j], penalty);
      const double delta = next - gamma_[j];
      busy_[j] = 0;
      check_.release(j);
      ++updates_;
      sampler_.step(j, delta);
      if (delta == 0) continue;
      largest = std::max(largest, 0.5 * stats_.curvature[j] * delta * delta);
      gamma_[j] = next;
      const double beta_step = delta / stats_.scale[j];
      pending_.push_back({j, beta_step});
      mu_dot_beta_ += stats_.mean[j] * beta_step;
    }
    return largest;
  }

  // Drains the pipeline, then sums every column against the exact residual.
  Certificate run_check(const Penalty& penalty, std::vector<double>& gradients) {
    while (!in_flight_.empty()) pull(receive_oldest(), penalty);
    mu_dot_beta_ = 0;  // recomputed, so rounding does not drift over a long run
    for (std::uint32_t j = 0; j < p_; ++j) mu_dot_beta_ += stats_.mean[j] * gamma_[j] / stats_.scale[j];
    send(round_++, RoundKind::kCheck, {});
    const InFlight done = receive_oldest();
    const double n = static_cast<double>(stats_.samples);
    gradients.assign(p_, 0.0);
    for (std::uint32_t j = 0; j < p_; ++j)
      if (stats_.usable[j]) gradients[j] = stats_.gradient(j, done.sums[j], done.residual_mean);
    ++checks_;
    last_rss_ = done.sums[p_] / n;
    last_dot_y_ = done.sums[p_ + 1] / n;
    return certify(gamma_, gradients, last_rss_, last_dot_y_, penalty);
  }

  std::uint32_t nnz() const {
    return static_cast<std::uint32_t>(std::count_if(gamma_.begin(), gamma_.end(), [](double g) { return g != 0; }));
  }

  void reprioritise(const std::vector<double>& gradients, const Penalty& penalty) {
    std::vector<double> predicted(p_, 0.0);
    for (std::uint32_t j = 0; j < p_; ++j)
      if (stats_.usable[j])
        predicted[j] = coordinate_minimiser(gamma_[j], gradients[j], stats_.curvature[j], penalty) - gamma_[j];
    sampler_.reprioritise(predicted);
  }

  LambdaSolution solve(int index, double lambda, std::vector<double>& gradients) {
    const Penalty penalty{lambda, config_.alpha};
    LambdaSolution out;
    out.lambda = lambda;
    const auto began = Clock::now();
    const std::uint64_t updates_before = updates_, rounds_before = round_, checks_before = checks_;
    // The check that ended the previous λ (or the start) holds the exact gradient of this β.
    Certificate certificate = certify(gamma_, gradients, last_rss_, last_dot_y_, penalty);
    double last_objective = certificate.objective;
    for (;;) {
      report(index, lambda, certificate);
      const std::uint64_t spent = updates_ - updates_before;
      out.converged = certificate.duality_gap <= config_.tol * certificate.objective;
      if (out.converged || spent >= max_updates_) break;
      reprioritise(gradients, penalty);
      std::uint64_t since_check = 0;
      std::deque<double> recent;  // largest decrease of F in each of the last rounds pulled
      while (since_check < check_every_) {
        if (static_cast<int>(in_flight_.size()) < depth_) {
          const std::vector<std::uint32_t> candidates = sampler_.propose(batch_, busy_);
          std::vector<std::uint32_t> kept = check_.keep(candidates, busy_);
          if (kept.size() < candidates.size()) {
            std::vector<std::uint32_t> dropped;
            for (std::uint32_t j : candidates)
              if (!busy_[j]) dropped.push_back(j);
            sampler_.restore(dropped);
          }
          if (!kept.empty()) {
            since_check += kept.size();
            send(round_++, RoundKind::kPartials, std::move(kept));
            continue;
          }
          if (in_flight_.empty()) break;  // nothing to propose
        }
        // On the priority schedule the rounds hold the coordinates that still move; once even
        // their steps lower F by less than the tolerance, the active set has converged and only
        // an exact check can tell what else must move (glmnet's active-set cycle, driven by
        // priorities). Checks are one pass over the data, so this errs towards checking often.
        // The rounds in flight together are judged together: the one after a full round may
        // hold only the leftovers.
        recent.push_back(pull(receive_oldest(), penalty));
        if (static_cast<int>(recent.size()) > depth_) recent.pop_front();
        if (config_.schedule == ScheduleKind::priority && !sampler_.warming_up() && since_check >= batch_ &&
            *std::max_element(recent.begin(), recent.end()) <= config_.tol * certificate.objective)
          break;
      }
      if (since_check == 0) break;  // no coordinate can move: the budget cannot buy more
      certificate = run_check(penalty, gradients);
      // Steps from stale sums can overshoot on correlated columns: if an interval made F
      // worse, halve the batch (then the depth) until it no longer does.
      if (certificate.objective > last_objective * (1 + 1e-12)) {
        if (batch_ > 1) batch_ = std::max<std::uint32_t>(1, batch_ / 2);
        else depth_ = std::max(1, depth_ / 2);
      }
      last_objective = certificate.objective;
    }
    out.certificate = certificate;
    out.beta.resize(p_);
    for (std::uint32_t j = 0; j < p_; ++j) out.beta[j] = gamma_[j] / stats_.scale[j];
    out.intercept = stats_.y_offset - mu_dot_beta_;
    out.updates = updates_ - updates_before;
    out.rounds = round_ - rounds_before;
    out.checks = checks_ - checks_before;
    out.seconds = std::chrono::duration<double>(Clock::now() - began).count();
    return out;
  }

  void report(int index, double lambda, const Certificate& c) {
    // Every check passes here: a coefficient vector that is no longer numbers stops the solve
    // before anything is written (the readers and the sums' checks make this a last resort).
    if (!std::isfinite(c.objective) || !std::isfinite(c.duality_gap))
      throw std::runtime_error("the objective at lambda " + std::to_string(lambda) + " is " +
                               std::to_string(c.objective) + "; no coefficients are written");
    if (!on_check_) return;
    CheckReport r;
    r.lambda_index = index;
    r.lambda = lambda;
    r.round = round_;
    r.seconds = seconds();
    r.certificate = c;
    r.nnz = nnz();
    r.updates = updates_;
    r.batch = batch_;
    r.depth = depth_;
    on_check_(r);
  }

  LassoRun solve_path() {
    LassoRun out;
    if (!(config_.alpha > 0 && config_.alpha <= 1)) throw std::invalid_argument("alpha must be in (0, 1]");
    // λ_max: at β = 0 every gradient is at most λα exactly when λ ≥ max|g_j|/α.
    std::vector<double> gradients;
    run_check(Penalty{0, config_.alpha}, gradients);
    for (std::uint32_t j = 0; j < p_; ++j) out.lambda_max = std::max(out.lambda_max, std::abs(gradients[j]));
    out.lambda_max /= config_.alpha;
    std::vector<double> lambdas = config_.lambdas;
    if (lambdas.empty()) {
      const int n = std::max(1, config_.path_length);
      double ratio = config_.lambda_ratio;
      if (ratio <= 0) ratio = stats_.samples > usable_ ? 1e-4 : 1e-2;
      for (int k = 0; k < n; ++k)
        lambdas.push_back(out.lambda_max * (n == 1 ? ratio : std::pow(ratio, static_cast<double>(k) / (n - 1))));
    }
    for (std::size_t k = 0; k < lambdas.size(); ++k) {
      if (!(lambdas[k] > 0) || !std::isfinite(lambdas[k])) throw std::invalid_argument("lambda must be positive");
      out.path.push_back(solve(static_cast<int>(k), lambdas[k], gradients));
    }
    return out;
  }

  net::Group& group_;
  runtime::Mailbox& mailbox_;
  std::vector<int> workers_;
  const ColumnStats& stats_;
  const LassoConfig& config_;
  std::function<void(const CheckReport&)> on_check_;
  std::chrono::milliseconds timeout_;
  std::uint32_t p_;
  std::uint32_t usable_ = 0;
  std::vector<double> gamma_;
  std::vector<std::uint8_t> busy_;    // in flight, or unusable
  DependencyCheck check_;
  CoordinateSampler sampler_;
  std::uint32_t batch_ = 1;
  int depth_ = 1;
  std::uint64_t check_every_ = 1, max_updates_ = 1;
  std::deque<InFlight> in_flight_;
  std::vector<net::Message> parked_;  // replies read ahead of their round
  std::vector<CoefficientStep> pending_;
  double mu_dot_beta_ = 0;              // μᵀβ (0 without an intercept, as μ is)
  double last_rss_ = 0, last_dot_y_ = 0;  // of the last check, per sample
  std::uint64_t round_ = 0, updates_ = 0, checks_ = 0;
  Clock::time_point start_;
};

}  // namespace

LassoRun run_lasso_scheduler(runtime::Mailbox& mailbox, std::vector<int> workers, const SchedulerData& data,
                             const LassoConfig& config, std::function<void(const CheckReport&)> on_check,
                             std::chrono::milliseconds timeout) {
  RoundScheduler scheduler(mailbox, std::move(workers), data, config, std::move(on_check), timeout);
  return scheduler.run();
}

}  // namespace gyre::lasso
