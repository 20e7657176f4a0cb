// apps/common/app/ps_sgd.hpp — data-parallel minibatch SGD on the parameter-server engine, shared by gyre-logreg and gyre-mlp.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "app/ps_sgd_checkpoint.hpp"
#include "gyre/ps/barrier.hpp"
#include "gyre/rotation/rotation_job.hpp"

namespace gyre::app::ps_sgd {

enum class Transport { kInproc, kTcp };  // tcp: every rank in this process, over loopback
// Where the parameters live: on parameter servers, owned by the workers themselves (peer to
// peer, no server), or a replica on every worker that a background averager blends with the
// others' (model averaging: no server and no barrier, so nobody waits for a straggler).
enum class Engine { kPs, kP2p, kAverage };

// What every data-parallel SGD app sets the same way (an app's config derives from this).
struct Settings {
  std::string name = "ps-sgd";     // names the errors and the loopback job
  int workers = 1;
  int servers = 1;                 // parameter-server shards (kPs; under kP2p every worker owns a part)
  Engine engine = Engine::kPs;
  ps::Barrier barrier;
  // Bösen's per-table staleness: one rule per layer of the model (Model::layers), which bounds
  // the reads of that layer's keys (ps::Table), while `barrier` paces the steps. Empty: the
  // barrier bounds every read.
  std::vector<ps::Barrier> layer_barriers;
  double learning_rate = 0.5;
  double decay = 0;                // step c uses learning_rate / (1 + decay·c)
  int batch = 64;                  // rows per worker per step
  std::int64_t max_steps = 200;    // per worker
  double max_seconds = 0;          // > 0: a worker also stops once this much wall time has passed
  int eval_every = 10;             // worker 0 evaluates every this many steps
  std::uint32_t block = 64;        // parameters per parameter-server key
  std::string step_delay = "none"; // injected straggling per step (net::FaultSpec::parse_delay)
  std::string slow_workers;        // "1,4": these workers' pauses are slow_factor times as long
  double slow_factor = 5;
  Transport transport = Transport::kInproc;
  std::uint64_t seed = 1;

  void validate() const;  // throws std::invalid_argument naming `name`
};

struct Fit {
  double loss = 0;      // mean loss (with the app's penalty)
  double accuracy = 0;  // share of samples classified right
};

struct Evaluation {
  std::int64_t step = 0;     // worker 0's clock
  std::int64_t updates = 0;  // pushes all workers had made when worker 0 read the model (across
                             // processes: only process 0's own worker's pushes)
  double seconds = 0;        // since the job started
  Fit fit;                   // on the evaluation set, with worker 0's view of the model
};

struct Run {
  std::vector<double> parameters;  // the final model
  Fit fit;                         // of the final model on the evaluation set
  std::vector<Evaluation> evaluations;
  std::vector<std::int64_t> steps;   // per worker
  std::vector<double> held_seconds;  // per worker, at the barrier
  std::int64_t updates = 0;          // pushes in all (the workers' steps summed)
  double seconds = 0;
};

// The app's side: a flat parameter vector, the rows each worker owns, and two functions of it.
struct Model {
  std::size_t width = 0;                          // parameters
  std::vector<double> initial;                    // empty: zeros; else `width` starting values
  std::vector<std::vector<std::uint32_t>> shards; // per worker: its rows
  // Where each layer's parameters begin, ascending from 0 (Settings::layer_barriers); a key
  // belongs to the layer of its first parameter. Empty: one layer.
  std::vector<std::size_t> layers;
  // The step direction of one minibatch: sets `gradient` (width entries, zeroed on entry) to the
  // mean loss gradient over `rows` plus the penalty's gradient.
  std::function<void(std::span<const double> parameters, std::span<const std::uint32_t> rows, std::span<double> gradient)>
      gradient;
  std::function<Fit(std::span<const double> parameters)> evaluate;
};

struct Options {
  std::function<void(const Evaluation&)> on_evaluation;  // called on worker 0's thread
  // Checkpoints at epoch boundaries (parameter-server engine, BSP or SSP only).
  Checkpoints checkpoints;
  // Where the run starts: from scratch, or a checkpoint's state (the steps count on from its clock).
  std::optional<Resumed> resumed;
  // Worker 0, once an epoch's checkpoint (if one is due) is whole: the epoch, counted over the model's life.
  std::function<void(std::int64_t epoch)> on_epoch;
};

// An epoch: one pass over the largest worker's rows in batches, at least one step. Checkpoints
// are taken at the ends of epochs.
std::int64_t clocks_per_epoch(const Model& model, const Settings& settings);

// Worker w takes `batch` of its rows at random each step, reads the model (through its cache,
// as fresh as the barrier asks) and pushes −η/P·gradient: with BSP that is minibatch SGD with
// a batch of P·batch rows. Worker 0 evaluates every eval_every steps.
Run train(const Model& model, const Settings& settings, const Options& options = {});

// This process's part of a multi-process job (settings.workers = processes); the run on
// process 0, nullopt elsewhere.
std::optional<Run> train_cluster(const Model& model, const Settings& settings, const Options& options,
                                 const rotation::ClusterJobOptions& cluster);

// Stops a run whose parameters are no longer numbers, before a model of NaNs is written.
void require_finite(double value, std::int64_t step);

}  // namespace gyre::app::ps_sgd
