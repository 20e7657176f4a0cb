// apps/logreg/trainer.cpp — logistic regression as a model of the shared data-parallel SGD program (app/ps_sgd).
#include "logreg/trainer.hpp"

#include <cmath>
#include <stdexcept>

#include "gyre/data/regression_partition.hpp"

namespace gyre::logreg {

void LogregConfig::validate() const {
  if (!(l2 >= 0) || !std::isfinite(l2)) throw std::invalid_argument("logreg: l2 must be finite and ≥ 0");
  Settings::validate();
}

namespace {

// The weights and then the bias, as one parameter vector; the gradient is the batch mean plus λw.
app::ps_sgd::Model model_of(const data::RegressionSet& set, const data::RegressionSet& eval, const LogregConfig& c) {
  c.validate();
  if (set.samples() == 0) throw std::invalid_argument("logreg: no training samples");
  if (static_cast<std::uint64_t>(c.workers) > set.samples())
    throw std::invalid_argument("logreg: " + std::to_string(c.workers) + " workers but only " +
                                std::to_string(set.samples()) + " samples: at most one worker per sample");
  if (eval.features > set.features)
    throw std::invalid_argument("logreg: the evaluation set has feature " + std::to_string(eval.features) +
                                " beyond the training set's " + std::to_string(set.features));
  const std::uint32_t p = set.features;
  app::ps_sgd::Model m;
  m.width = std::size_t{p} + 1;
  m.shards = data::deal_rows(set, static_cast<std::uint32_t>(c.workers));
  m.gradient = [&set, p, l2 = c.l2, batch = c.batch](std::span<const double> w, std::span<const std::uint32_t> rows,
                                                     std::span<double> gradient) {
    add_gradient(set, rows, w.first(p), w[p], gradient.first(p), gradient[p]);
    for (std::size_t j = 0; j < gradient.size(); ++j) gradient[j] = gradient[j] / batch + (j < p ? l2 * w[j] : 0.0);
  };
  m.evaluate = [&eval, p, l2 = c.l2](std::span<const double> w) { return evaluate(eval, w.first(p), w[p], l2); };
  return m;
}

LogregRun run_of(app::ps_sgd::Run&& r) {
  LogregRun run;
  run.weights = std::move(r.parameters);
  run.fit = r.fit;
  run.evaluations = std::move(r.evaluations);
  run.steps = std::move(r.steps);
  run.held_seconds = std::move(r.held_seconds);
  run.seconds = r.seconds;
  return run;
}

}  // namespace

LogregRun train(const data::RegressionSet& set, const data::RegressionSet& eval, const LogregConfig& config,
                const TrainOptions& options) {
  return run_of(app::ps_sgd::train(model_of(set, eval, config), config, options));
}

std::optional<LogregRun> train_cluster(const data::RegressionSet& set, const data::RegressionSet& eval,
                                       const LogregConfig& config, const TrainOptions& options,
                                       const rotation::ClusterJobOptions& cluster) {
  auto run = app::ps_sgd::train_cluster(model_of(set, eval, config), config, options, cluster);
  if (!run) return std::nullopt;
  return run_of(std::move(*run));
}

}  // namespace gyre::logreg
