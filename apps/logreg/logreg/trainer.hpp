// apps/logreg/logreg/trainer.hpp — logistic regression by data-parallel SGD on the parameter-server or peer-to-peer engine.
#pragma once

#include <functional>
#include <optional>
#include <vector>

#include "gyre/data/regression.hpp"
#include "gyre/rotation/rotation_job.hpp"
#include "logreg/config.hpp"
#include "logreg/model.hpp"

namespace gyre::logreg {

using Evaluation = app::ps_sgd::Evaluation;  // worker 0's clock, updates, seconds, fit

struct LogregRun {
  std::vector<double> weights;  // p weights, then the bias
  Fit fit;                      // of the final model on the evaluation set
  std::vector<Evaluation> evaluations;
  std::vector<std::int64_t> steps;   // per worker
  std::vector<double> held_seconds;  // per worker, at the barrier
  double seconds = 0;
};

using TrainOptions = app::ps_sgd::Options;  // on_evaluation: called on worker 0's thread

// Worker w holds the rows data::deal_rows gives it; the weights live on the servers (config.engine
// kPs) or on the workers themselves, each owning a range of the keys (kP2p), in keys of `block` weights. Each step a worker reads the model (through its cache, as fresh as the
// barrier asks), takes `batch` rows of its own at random, and pushes −η/(P·batch)·Σ∇ − η/P·λw:
// with BSP that is minibatch SGD with a batch of P·batch rows. `eval` (often the training set)
// is what worker 0 measures the loss on.
LogregRun train(const data::RegressionSet& train, const data::RegressionSet& eval, const LogregConfig& config,
                const TrainOptions& options = {});

// This process's part of a multi-process job: config.workers = processes, one server (on
// process 0, beside worker 0). Every process reads the whole data and keeps its worker's rows.
// Returns the run on process 0, nullopt elsewhere.
std::optional<LogregRun> train_cluster(const data::RegressionSet& train, const data::RegressionSet& eval,
                                       const LogregConfig& config, const TrainOptions& options,
                                       const rotation::ClusterJobOptions& cluster);

}  // namespace gyre::logreg
