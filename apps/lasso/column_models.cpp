// apps/lasso/column_models.cpp — column-owning Lasso workers: sweeps of CoCoA+'s local subproblem, the residual's changes summed (C) or pushed (D), checks joined.
#include "lasso/column_models.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <string>

#include "gyre/collective/communicator.hpp"
#include "gyre/collective/delta_exchange.hpp"
#include "gyre/data/column_matrix.hpp"
#include "lasso/column_stats.hpp"
#include "lasso/lambda_path.hpp"
#include "lasso/penalty.hpp"

namespace gyre::lasso {
namespace {

// What every worker of this process reads: the whole set by column and its statistics.
struct ColumnData {
  ColumnData(const data::RegressionSet& set, const LassoConfig& config)
      : stats(compute_column_stats(set, config.intercept, config.standardize)), columns(data::to_columns(set)) {
    centred_y.resize(set.samples());
    for (std::uint64_t i = 0; i < set.samples(); ++i) centred_y[i] = set.y[i] - stats.y_offset;
    for (std::uint32_t j = 0; j < stats.features(); ++j) usable += stats.usable[j] ? 1 : 0;
  }
  ColumnStats stats;
  data::ColumnMatrix columns;
  std::vector<double> centred_y;  // y − ȳ: the residual at β = 0
  std::uint64_t usable = 0;
};

std::vector<int> worker_ranks(int workers) {
  std::vector<int> r(static_cast<std::size_t>(workers));
  std::iota(r.begin(), r.end(), 0);
  return r;
}

class ColumnWorker {
 public:
  ColumnWorker(const ColumnData& data, const LassoConfig& config, const SolveOptions& options, runtime::Mailbox& inbox)
      : data_(data),
        stats_(data.stats),
        config_(config),
        options_(options),
        inbox_(inbox),
        workers_(inbox, worker_ranks(config.workers), collective::CollectiveOptions{options.timeout}),
        P_(config.workers),
        n_(static_cast<double>(data.stats.samples)),
        residual_(data.centred_y),
        gamma_(data.stats.features(), 0.0) {
    for (std::uint32_t j = 0; j < stats_.features(); ++j)
      if (stats_.usable[j] && static_cast<int>(j % static_cast<std::uint32_t>(P_)) == workers_.index()) own_.push_back(j);
    if (config.model == ComputationModel::kNoSync)
      pushed_.emplace(inbox, worker_ranks(P_), residual_.size() + 1, collective::DeltaExchangeOptions{options.timeout, 0});
    const std::uint64_t usable = std::max<std::uint64_t>(data.usable, 1);
    check_rounds_ = config.check_every ? std::max<std::uint64_t>(1, config.check_every / usable) : 4;
    max_rounds_ = config.max_updates ? std::max<std::uint64_t>(1, config.max_updates / usable) : 10000;
  }

  // The whole path; the run on worker 0 (every worker computes it, the others drop it).
  LassoRun run() {
    started_ = std::chrono::steady_clock::now();
    std::vector<double> gradients(stats_.features(), 0.0);  // at β = 0, for λ_max
    for (const std::uint32_t j : own_) gradients[j] = stats_.gradient(j, column_dot(j, residual_), 0.0);
    workers_.allreduce_sum(std::span<double>(gradients));
    path_.start(gradients, config_, stats_, static_cast<std::uint32_t>(data_.usable));
    for (std::size_t k = 0; path_.begin(k, config_.alpha, spent()); ++k) solve_lambda();
    return std::move(path_).result();
  }

 private:
  Spent spent() const { return {updates_, rounds_, checks_}; }
  // σ′ of the local subproblems: P (column_models.hpp says why).
  double sigma() const { return static_cast<double>(P_); }

  double column_dot(std::uint32_t j, std::span<const double> r) const {
    const auto& c = data_.columns;
    double sum = 0;
    for (std::uint64_t e = c.col_begin[j]; e < c.col_begin[j + 1]; ++e) sum += c.values[e] * r[c.rows[e]];
    return sum;
  }

  void solve_lambda() {
    const Penalty& penalty = path_.penalty();
    Certificate certificate = check();
    std::uint64_t rounds_on_lambda = 0;
    bool converged = false;
    for (;;) {
      converged = certificate.duality_gap <= config_.tol * certificate.objective;
      if (converged || rounds_on_lambda >= max_rounds_) break;
      for (std::uint64_t i = 0; i < check_rounds_; ++i, ++rounds_on_lambda) {
        if (inbox_.cancelled())
          throw runtime::JobFailed(inbox_.group().rank(), runtime::FailureCause::kCancelled, "cancelled between rounds");
        round(penalty);
      }
      if (pushed_) flush();
      certificate = check();
    }
    LambdaSolution solution;
    solution.converged = converged;
    solution.certificate = certificate;
    solution.beta.assign(stats_.features(), 0.0);
    for (const std::uint32_t j : own_) solution.beta[j] = gamma_[j] / stats_.scale[j];
    workers_.allreduce_sum(std::span<double>(solution.beta));  // each coefficient from its owner, the rest 0
    solution.intercept = stats_.y_offset + mean_;  // ȳ − μᵀβ
    path_.finish(std::move(solution), spent());
  }

  // One sweep of the worker's features, then the merge of every worker's changes.
  void round(const Penalty& penalty) {
    start_residual_ = residual_;
    const double start_mean = mean_;
    sweep(penalty);
    // The change the steps make, unscaled: the sweep moved this copy by σ′ times as much.
    change_.resize(residual_.size() + 1);
    for (std::size_t i = 0; i < residual_.size(); ++i) change_[i] = (residual_[i] - start_residual_[i]) / sigma();
    change_.back() = (mean_ - start_mean) / sigma();
    ++rounds_;
    updates_ += data_.usable;
    if (pushed_) {
      set_from_start(change_, start_mean);
      pushed_->push(change_);
      pushed_->take_arrived([&](std::span<const double> peer) { add(peer); });
      return;
    }
    workers_.allreduce_sum(std::span<double>(change_));
    set_from_start(change_, start_mean);
  }

  // Exact minimisation of the local subproblem, feature by feature: the curvature and this
  // copy's residual steps are σ′ times the coordinate's own.
  void sweep(const Penalty& penalty) {
    const auto& c = data_.columns;
    for (const std::uint32_t j : own_) {
      const double g = stats_.gradient(j, column_dot(j, residual_), mean_);
      const double next = coordinate_minimiser(gamma_[j], g, sigma() * stats_.curvature[j], penalty);
      if (next == gamma_[j]) continue;
      const double step = sigma() * (next - gamma_[j]) / stats_.scale[j];  // on the raw scale
      gamma_[j] = next;
      for (std::uint64_t e = c.col_begin[j]; e < c.col_begin[j + 1]; ++e) residual_[c.rows[e]] -= c.values[e] * step;
      mean_ -= stats_.mean[j] * step;
    }
  }

  void set_from_start(std::span<const double> change, double start_mean) {
    for (std::size_t i = 0; i < residual_.size(); ++i) residual_[i] = start_residual_[i] + change[i];
    mean_ = start_mean + change.back();
  }

  void add(std::span<const double> change) {
    for (std::size_t i = 0; i < residual_.size(); ++i) residual_[i] += change[i];
    mean_ += change.back();
  }

  // D: every push taken, then worker 0's replica for all, which the others' equal but for the
  // order their additions came in.
  void flush() {
    pushed_->take_until(pushed_->pushed(), [&](std::span<const double> peer) { add(peer); });
    residual_.push_back(mean_);
    workers_.broadcast(std::span<double>(residual_), 0);
    mean_ = residual_.back();
    residual_.pop_back();
  }

  // Σ(r − m)²/n and Σ(r − m)(y − ȳ)/n: the same on every worker, whose replicas are equal.
  std::pair<double, double> residual_sums() const {
    double rss = 0, dot_y = 0;
    for (std::size_t i = 0; i < residual_.size(); ++i) {
      const double centred = residual_[i] - mean_;
      rss += centred * centred;
      dot_y += centred * data_.centred_y[i];
    }
    return {rss / n_, dot_y / n_};
  }

  // The exact certificate of the replicas' β, joined from every worker's features.
  Certificate check() {
    const Penalty& penalty = path_.penalty();
    CoefficientSums mine;
    for (const std::uint32_t j : own_) mine.add(gamma_[j], stats_.gradient(j, column_dot(j, residual_), mean_), penalty);
    const double parts[4] = {mine.l1_norm, mine.l2_norm, mine.dual_norm, mine.kkt_violation};
    std::vector<double> all(4 * static_cast<std::size_t>(P_));
    workers_.allgather(std::span<const double>(parts), std::span<double>(all));
    CoefficientSums joined;
    for (int w = 0; w < P_; ++w) {
      const double* p = all.data() + 4 * static_cast<std::size_t>(w);
      joined.join(CoefficientSums{p[0], p[1], p[2], p[3]});
    }
    const auto [rss, dot_y] = residual_sums();
    const Certificate c = certify(joined, rss, dot_y, penalty);
    ++checks_;
    if (!std::isfinite(c.objective) || !std::isfinite(c.duality_gap))
      throw std::runtime_error("the objective at lambda " + std::to_string(penalty.lambda) + " is " +
                               std::to_string(c.objective) + "; no coefficients are written");
    // The non-zeros of every worker's coefficients: a collective, so every worker counts.
    std::uint64_t nnz = static_cast<std::uint64_t>(
        std::count_if(own_.begin(), own_.end(), [&](std::uint32_t j) { return gamma_[j] != 0; }));
    workers_.allreduce_sum(std::span<std::uint64_t>(&nnz, 1));
    if (workers_.index() == 0 && options_.on_check) {
      CheckReport r;
      r.lambda_index = static_cast<int>(path_.index());
      r.lambda = penalty.lambda;
      r.round = rounds_;
      r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
      r.certificate = c;
      r.nnz = static_cast<std::uint32_t>(nnz);
      r.updates = updates_;
      r.check = checks_;
      options_.on_check(r);
    }
    return c;
  }

  const ColumnData& data_;
  const ColumnStats& stats_;
  const LassoConfig& config_;
  const SolveOptions& options_;
  runtime::Mailbox& inbox_;
  collective::Communicator workers_;
  int P_;
  double n_;
  std::vector<std::uint32_t> own_;     // this worker's usable features, increasing
  std::vector<double> residual_;       // the replica of r
  double mean_ = 0;                    // and of m = −μᵀβ
  std::vector<double> gamma_;          // γ of the features (only the own ones are this worker's to set)
  std::vector<double> start_residual_, change_;
  std::optional<collective::DeltaExchange<double>> pushed_;  // D
  std::uint64_t check_rounds_ = 4, max_rounds_ = 10000;
  std::uint64_t rounds_ = 0, updates_ = 0, checks_ = 0;
  LambdaPath path_;
  std::chrono::steady_clock::time_point started_;
};

}  // namespace

runtime::Job column_job(int workers, runtime::Backend backend) { return runtime::Job{workers, {}, std::move(backend), {}, {}}; }

std::optional<LassoRun> solve_by_columns(const runtime::Job& job, const data::RegressionSet& set,
                                         const LassoConfig& config, const SolveOptions& options) {
  validate(set, config);
  if (config.model == ComputationModel::kRounds) throw std::invalid_argument("solve_by_columns: the rounds are solve()'s");
  if (config.loss != Loss::squared) throw std::invalid_argument("the allreduce and nosync models solve the squared loss only");
  if (options.checkpoints.target.store || options.checkpoints.resume)
    throw std::invalid_argument("--checkpoint and --resume work with --model rounds only");
  if (job.workers != config.workers || !job.roles.empty())
    throw std::invalid_argument("a column-model Lasso job has config.workers workers and nothing else");
  const bool across_processes = std::holds_alternative<runtime::ProcessesBackend>(job.backend);
  const ColumnData data(set, config);
  std::optional<LassoRun> run;
  runtime::run(job, [&](const runtime::Member& m) {
    ColumnWorker worker(data, config, options, m.mailbox);
    LassoRun mine = worker.run();
    if (across_processes && options.on_traffic) options.on_traffic(m.group.bytes_sent());
    if (m.rank == 0) run = std::move(mine);
  });
  return run;
}

}  // namespace gyre::lasso
