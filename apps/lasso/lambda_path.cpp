// apps/lasso/lambda_path.cpp — the λ grid, each λ's start and end, and their part of a checkpoint.
#include "lasso/lambda_path.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace gyre::lasso {

void LambdaPath::start(std::span<const double> gradients, const LassoConfig& config, const ColumnStats& stats,
                       std::uint32_t usable) {
  for (const double g : gradients) run_.lambda_max = std::max(run_.lambda_max, std::abs(g));
  run_.lambda_max /= config.alpha;
  lambdas_ = config.lambdas;
  if (!lambdas_.empty()) return;
  const int n = std::max(1, config.path_length);
  double ratio = config.lambda_ratio;
  if (ratio <= 0) ratio = stats.samples > usable ? 1e-4 : 1e-2;
  for (int k = 0; k < n; ++k)
    lambdas_.push_back(run_.lambda_max * (n == 1 ? ratio : std::pow(ratio, static_cast<double>(k) / (n - 1))));
}

bool LambdaPath::begin(std::size_t k, double alpha, Spent now) {
  if (k == lambdas_.size()) return false;
  const double lambda = lambdas_[k];
  if (!(lambda > 0) || !std::isfinite(lambda)) throw std::invalid_argument("lambda must be positive");
  index_ = k;
  penalty_ = Penalty{lambda, alpha};
  began_ = Clock::now();
  before_ = now;
  return true;
}

void LambdaPath::finish(LambdaSolution solution, Spent now) {
  solution.lambda = penalty_.lambda;
  solution.updates = now.updates - before_.updates;
  solution.rounds = now.rounds - before_.rounds;
  solution.checks = now.checks - before_.checks;
  solution.seconds = seconds_on_lambda();
  run_.path.push_back(std::move(solution));
}

void LambdaPath::resume_clock(double seconds_on_lambda) {
  began_ = Clock::now() - std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds_on_lambda));
}

void LambdaPath::save_solutions(StateWriter& out) const {
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
  out.put<std::uint64_t>(index_);
}

void LambdaPath::restore_solutions(StateReader& in, const LassoConfig& config, std::uint32_t features) {
  run_.lambda_max = in.get<double>();
  const auto solved = in.get<std::uint64_t>();
  if (solved > config.lambdas.size() + static_cast<std::uint64_t>(std::max(1, config.path_length)))
    in.fail("at most as many solutions as λs");
  run_.path.assign(solved, {});
  for (LambdaSolution& s : run_.path) {
    s.lambda = in.get<double>();
    s.beta = in.get_all<double>(features, "a solution's coefficients");
    s.intercept = in.get<double>();
    s.certificate = in.get<Certificate>();
    s.converged = in.get<std::uint8_t>() != 0;
    s.updates = in.get<std::uint64_t>();
    s.rounds = in.get<std::uint64_t>();
    s.checks = in.get<std::uint64_t>();
    s.seconds = in.get<double>();
  }
  lambdas_ = in.get_all<double>();
  index_ = in.get<std::uint64_t>();
  if (index_ >= lambdas_.size() || run_.path.size() != index_) in.fail("a λ path position within the path");
  penalty_ = Penalty{lambdas_[index_], config.alpha};
}

void LambdaPath::save_spent(StateWriter& out) const {
  out.put(before_.updates);
  out.put(before_.rounds);
  out.put(before_.checks);
}

void LambdaPath::restore_spent(StateReader& in) {
  before_.updates = in.get<std::uint64_t>();
  before_.rounds = in.get<std::uint64_t>();
  before_.checks = in.get<std::uint64_t>();
}

}  // namespace gyre::lasso
