// apps/mlp/mlp/trainer.hpp — the perceptron trained by data-parallel SGD on the parameter-server engine (as gyre-logreg trains logistic regression).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "app/ps_sgd.hpp"
#include "gyre/rotation/rotation_job.hpp"
#include "mlp/dataset.hpp"
#include "mlp/network.hpp"

namespace gyre::mlp {

using Transport = app::ps_sgd::Transport;
using Evaluation = app::ps_sgd::Evaluation;
using TrainOptions = app::ps_sgd::Options;

// The engine's settings (workers, barrier, learning rate, batch, steps, straggling, …) and the network's.
struct MlpConfig : app::ps_sgd::Settings {
  int hidden = 32;
  double l2 = 1e-4;             // λ of λ/2(‖W1‖² + ‖W2‖²)
  std::uint64_t init_seed = 0;  // the starting weights' seed; 0: the run's seed

  MlpConfig() {
    name = "mlp";
    learning_rate = 0.1;
    batch = 16;
    block = 256;
  }
  void validate() const;  // throws std::invalid_argument
};

struct MlpRun {
  Shape shape;
  app::ps_sgd::Run run;  // parameters (see Shape), final fit, evaluations, steps, updates
};

// Every worker holds every sample i with i mod P = its index. Inputs are scaled by
// 1 / (the largest |value| of the training set). The servers start from Glorot-uniform weights.
MlpRun train(const Dataset& train, const Dataset& eval, const MlpConfig& config, const TrainOptions& options = {});

// This process's part of a multi-process job (config.workers = processes); the run on
// process 0, nullopt elsewhere.
std::optional<MlpRun> train_cluster(const Dataset& train, const Dataset& eval, const MlpConfig& config,
                                    const TrainOptions& options, const rotation::ClusterJobOptions& cluster);

}  // namespace gyre::mlp
