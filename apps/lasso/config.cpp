// apps/lasso/config.cpp — schedule names and the ranges of the settings.
#include "lasso/config.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

#include "gyre/base/limits.hpp"

namespace gyre::lasso {

ScheduleKind parse_schedule(const std::string& name) {
  if (name == "cyclic") return ScheduleKind::cyclic;
  if (name == "random") return ScheduleKind::random;
  if (name == "priority") return ScheduleKind::priority;
  throw std::invalid_argument("unknown schedule '" + name + "' (cyclic, random or priority)");
}

const char* schedule_name(ScheduleKind kind) noexcept {
  switch (kind) {
    case ScheduleKind::cyclic: return "cyclic";
    case ScheduleKind::random: return "random";
    case ScheduleKind::priority: return "priority";
  }
  return "?";
}

Loss parse_loss(const std::string& name) {
  if (name == "squared") return Loss::squared;
  if (name == "logistic") return Loss::logistic;
  throw std::invalid_argument("unknown loss '" + name + "' (squared or logistic)");
}

ComputationModel parse_computation_model(const std::string& name) {
  if (name == "rounds") return ComputationModel::kRounds;
  if (name == "C" || name == "allreduce") return ComputationModel::kAllreduce;
  if (name == "D" || name == "nosync") return ComputationModel::kNoSync;
  throw std::invalid_argument("computation model '" + name + "': expected rounds, C|allreduce or D|nosync");
}

const char* name_of(ComputationModel model) noexcept {
  switch (model) {
    case ComputationModel::kRounds: return "rounds";
    case ComputationModel::kAllreduce: return "allreduce";
    case ComputationModel::kNoSync: return "nosync";
  }
  return "?";
}

bool worker_cycles(const LassoConfig& config, std::size_t workers) noexcept {
  return config.cycles && workers == 1;
}

void LassoConfig::validate() const {
  const auto need = [](bool ok, const std::string& what) {
    if (!ok) throw std::invalid_argument(what);
  };
  const auto finite = [](double v) { return std::isfinite(v); };
  for (const double l : lambdas) need(finite(l) && l > 0, "lambda must be a finite number > 0");
  if (lambdas.empty()) need(path_length >= 1 && path_length <= 100000, "the path length must be in 1..100000");
  need(finite(lambda_ratio) && lambda_ratio >= 0 && lambda_ratio < 1, "the lambda ratio must be in [0, 1)");
  need(finite(alpha) && alpha > 0 && alpha <= 1, "alpha must be in (0, 1]");
  need(finite(rho) && rho >= 0, "rho must be a finite number >= 0");
  need(finite(eta) && eta >= 0, "eta must be a finite number >= 0");
  need(finite(warmup_sweeps) && warmup_sweeps >= 0, "the warm-up must be a finite number of sweeps >= 0");
  need(finite(tol) && tol > 0, "tol must be a finite number > 0");
  need(batch <= 1'000'000, "the batch must be at most 1000000 coordinates");
  need(depth >= 1 && depth <= kMaxDepth, "depth must be in 1.." + std::to_string(kMaxDepth));
  need(workers >= 1 && workers <= kMaxWorkers, "workers must be in 1.." + std::to_string(kMaxWorkers));
  need(threads >= 1 && threads <= kMaxThreads, "threads must be in 1.." + std::to_string(kMaxThreads));
  need(model == ComputationModel::kRounds || loss == Loss::squared,
       "the allreduce and nosync models solve the squared loss only (--loss logistic runs on the rounds)");
}

}  // namespace gyre::lasso
