// apps/mlp/trainer.cpp — the perceptron as a model of the shared data-parallel SGD program (app/ps_sgd).
#include "mlp/trainer.hpp"

#include <cmath>
#include <stdexcept>

namespace gyre::mlp {

void MlpConfig::validate() const {
  if (hidden < 1 || hidden > (1 << 16)) throw std::invalid_argument("mlp: hidden units must be in 1..65536");
  if (!(l2 >= 0) || !std::isfinite(l2)) throw std::invalid_argument("mlp: l2 must be finite and ≥ 0");
  Settings::validate();
}

namespace {

app::ps_sgd::Model model_of(const Dataset& set, const Dataset& eval, const MlpConfig& c, Shape& shape) {
  c.validate();
  if (set.samples() == 0) throw std::invalid_argument("mlp: no training samples");
  if (c.workers > set.samples())
    throw std::invalid_argument("mlp: " + std::to_string(c.workers) + " workers but only " +
                                std::to_string(set.samples()) + " samples: at most one worker per sample");
  if (eval.features() != set.features() || eval.classes != set.classes)
    throw std::invalid_argument("mlp: the evaluation set has " + std::to_string(eval.features()) +
                                " features, the training set " + std::to_string(set.features()));
  const double largest = set.x.cwiseAbs().maxCoeff();
  shape = Shape{set.features(), c.hidden, set.classes, largest > 0 ? 1 / largest : 1.0};
  app::ps_sgd::Model m;
  m.width = shape.parameters();
  m.initial = initial_parameters(shape, c.init_seed ? c.init_seed : c.seed);
  m.layers = layer_starts(shape);
  m.shards.resize(static_cast<std::size_t>(c.workers));
  for (std::int64_t i = 0; i < set.samples(); ++i)
    m.shards[static_cast<std::size_t>(i % c.workers)].push_back(static_cast<std::uint32_t>(i));
  m.gradient = [&set, shape, l2 = c.l2](std::span<const double> p, std::span<const std::uint32_t> rows,
                                        std::span<double> gradient) {
    add_gradient(shape, p, set, rows, gradient);
    const auto n = static_cast<double>(rows.size());
    for (double& g : gradient) g /= n;
    add_weight_penalty(shape, p, l2, gradient);
  };
  m.evaluate = [&eval, shape, l2 = c.l2](std::span<const double> p) { return evaluate(shape, p, eval, l2); };
  return m;
}

}  // namespace

MlpRun train(const Dataset& set, const Dataset& eval, const MlpConfig& config, const TrainOptions& options) {
  MlpRun r;
  const auto model = model_of(set, eval, config, r.shape);
  r.run = app::ps_sgd::train(model, config, options);
  return r;
}

std::optional<MlpRun> train_cluster(const Dataset& set, const Dataset& eval, const MlpConfig& config,
                                    const TrainOptions& options, const rotation::ClusterJobOptions& cluster) {
  MlpRun r;
  const auto model = model_of(set, eval, config, r.shape);
  auto run = app::ps_sgd::train_cluster(model, config, options, cluster);
  if (!run) return std::nullopt;
  r.run = std::move(*run);
  return r;
}

}  // namespace gyre::mlp
