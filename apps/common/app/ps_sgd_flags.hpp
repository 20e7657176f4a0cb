// apps/common/app/ps_sgd_flags.hpp — the command-line flags of the data-parallel SGD apps (gyre-logreg, gyre-mlp), and how they become settings.
#pragma once

#include <CLI/CLI.hpp>

#include <optional>
#include <string>

#include "app/cluster_flags.hpp"
#include "app/ps_sgd.hpp"

namespace gyre::app {

class PsSgdFlags {
 public:
  // Adds --workers/-p, --servers, --barrier, --sampling, --lr, --decay, --batch, --steps,
  // --seconds, --eval-every, --block, --step-delay, --slow-workers, --transport and --seed,
  // writing into `settings` (whose values are shown as the defaults).
  void add_to(CLI::App& app, ps_sgd::Settings& settings);

  // After parsing: the workers (one per process, the flag, or every core), the barrier and the
  // transport; throws std::invalid_argument for --transport tcp across processes.
  void apply(const ClusterFlags::Job& job, ps_sgd::Settings& settings) const;

  const std::optional<int>& workers() const { return workers_; }
  const std::string& transport() const { return transport_; }
  bool per_check() const { return sampling_ == "per-check"; }

 private:
  std::optional<int> workers_;
  std::string barrier_ = "bsp", sampling_ = "per-step", transport_ = "inproc";
};

}  // namespace gyre::app
