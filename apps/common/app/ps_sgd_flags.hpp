// apps/common/app/ps_sgd_flags.hpp — the command-line flags of the data-parallel SGD apps (gyre-logreg, gyre-mlp), and how they become settings.
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "app/checkpoint_flags.hpp"
#include "app/cluster_flags.hpp"
#include "app/ps_sgd.hpp"

namespace gyre::report {
class MetricsLog;
}

namespace gyre::app {

class PsSgdFlags {
 public:
  // Adds --workers/-p, --engine, --servers, --barrier, --sampling, --lr, --decay, --batch, --steps,
  // --seconds, --eval-every, --block, --step-delay, --slow-workers, --slow-factor, --transport and --seed,
  // writing into `settings` (whose values are shown as the defaults).
  void add_to(CLI::App& app, ps_sgd::Settings& settings);

  // After parsing: the workers (one per process, the flag, or every core), the engine, the
  // barrier and the transport; throws std::invalid_argument for --transport tcp or --engine
  // p2p across processes.
  void apply(const ClusterFlags::Job& job, ps_sgd::Settings& settings) const;

  const std::optional<int>& workers() const { return workers_; }
  // "N workers, S servers, barrier B[ (per-step sampling)], inproc|tcp|processes over tcp".
  std::string describe(const ClusterFlags::Job& job, const ps_sgd::Settings& settings) const;

 private:
  std::optional<int> workers_;
  std::string engine_ = "ps", barrier_ = "bsp", sampling_ = "per-check", transport_ = "inproc";
};

// What the apps print and log per evaluation: a "step … updates … loss … accuracy" line on
// stdout unless `quiet`, and a JSON line {step, updates, seconds, loss, accuracy, barrier} in
// `metrics` when there is one (both must outlive the run).
ps_sgd::Options progress(report::MetricsLog* metrics, const bool& quiet, std::string barrier);

// --checkpoint and --resume for a data-parallel SGD run (call after PsSgdFlags::apply, before
// training): what its checkpoints record and a resume compares (every flag but `local` ones,
// the checkpoint flags and --steps and --seconds, which a resumed run may change; digests of
// `inputs`), the state a resume starts from (its line printed when `reports`), and the failure
// tests' kill. A multi-process job's settings (job.cluster) are set here too.
void use_checkpoints(const CheckpointFlags& flags, const CLI::App& app, const std::vector<std::string>& local,
                     const std::vector<std::string>& inputs, ClusterFlags::Job& job, const ps_sgd::Settings& settings,
                     ps_sgd::Options& options);

// "worker steps: median …, 5th …, 95th …; held at the barrier …% of worker time".
void print_worker_steps(std::span<const std::int64_t> steps, std::span<const double> held_seconds, double seconds);

}  // namespace gyre::app
