// apps/common/ps_sgd_flags.cpp — the data-parallel SGD apps' flags: engine, barrier, learning rate, straggling.
#include "app/ps_sgd_flags.hpp"

#include <algorithm>
#include <cstdio>
#include <numeric>
#include <stdexcept>
#include <thread>

#include <nlohmann/json.hpp>

#include "app/command_line.hpp"
#include "app/job_settings.hpp"
#include "gyre/base/limits.hpp"
#include "gyre/report/metrics_log.hpp"
#include "gyre/simulation/barrier_simulation.hpp"

namespace gyre::app {

void PsSgdFlags::add_to(CLI::App& app, ps_sgd::Settings& s) {
  app.add_option("--workers,-p", workers_, "data-parallel workers (default: all cores, or one per process)")
      ->check(CLI::Range(1, kMaxWorkers));
  app.add_option("--engine", engine_,
                 "ps (parameters on parameter servers), p2p (peer to peer: every worker owns a part, no server) or "
                 "average (a replica per worker, blended with the others' in the background: no barrier)")
      ->check(CLI::IsMember({"ps", "p2p", "average"}))->capture_default_str();
  app.add_option("--servers", s.servers, "parameter-server shards (--engine ps)")->capture_default_str()->check(CLI::Range(1, 1024));
  app.add_option("--barrier", barrier_, "bsp, ssp:S, asp, pbsp:BETA or pssp:BETA:S")->capture_default_str();
  app.add_option("--sampling", sampling_,
                 "pBSP/pSSP: a held worker draws its peers per-check (afresh each time it looks again, as the Owl book "
                 "states PSP) or per-step (once, then waits for those)")
      ->check(CLI::IsMember({"per-step", "per-check"}))->capture_default_str();
  app.add_option("--lr", s.learning_rate, "learning rate η")->capture_default_str()->check(positive_number());
  app.add_option("--decay", s.decay, "step c uses η / (1 + decay·c)")->capture_default_str()->check(non_negative_number());
  app.add_option("--batch", s.batch, "rows per worker per step")->capture_default_str()->check(CLI::Range(1, 1 << 24));
  app.add_option("--steps", s.max_steps, "steps per worker")
      ->capture_default_str()->check(CLI::Range(std::int64_t{1}, std::int64_t{1} << 40));
  app.add_option("--seconds", s.max_seconds, "also stop after this much wall time (0: no limit)")
      ->capture_default_str()->check(CLI::Range(0.0, 1e7));
  app.add_option("--eval-every", s.eval_every, "worker 0 evaluates every N steps")->capture_default_str()->check(CLI::Range(1, 1 << 30));
  app.add_option("--block", s.block, "parameters per parameter-server key")->capture_default_str()->check(CLI::Range(1u, 1u << 20));
  app.add_option("--step-delay", s.step_delay,
                 "injected straggling per step, in ms: none, fixed:MS, uniform:LO:HI, gamma:SHAPE:SCALE")
      ->capture_default_str();
  app.add_option("--slow-workers", s.slow_workers,
                 "stragglers: these workers' step delays are --slow-factor times as long (comma-separated, e.g. 4,5)");
  app.add_option("--slow-factor", s.slow_factor, "how much longer the --slow-workers pause")
      ->capture_default_str()->check(CLI::Range(0.0, 1000.0));
  app.add_option("--transport", transport_, "inproc (threads) or tcp (every rank in this process, over loopback)")
      ->check(CLI::IsMember({"inproc", "tcp"}))->capture_default_str();
  app.add_option("--seed", s.seed, "random seed (batches, samples, delays)")->capture_default_str();
}

void PsSgdFlags::apply(const ClusterFlags::Job& job, ps_sgd::Settings& s) const {
  s.workers = job.cluster || workers_ ? job.workers : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  if (job.cluster && transport_ == "tcp")
    throw std::invalid_argument("--transport tcp is for one process; several processes always use tcp");
  s.barrier = ps::Barrier(ps::BarrierSpec::parse(barrier_), ps::parse_sampling(sampling_));
  s.transport = transport_ == "tcp" ? ps_sgd::Transport::kTcp : ps_sgd::Transport::kInproc;
  s.engine = engine_ == "p2p" ? ps_sgd::Engine::kP2p : engine_ == "average" ? ps_sgd::Engine::kAverage : ps_sgd::Engine::kPs;
}

std::string PsSgdFlags::describe(const ClusterFlags::Job& job, const ps_sgd::Settings& s) const {
  return std::to_string(s.workers) + " workers, " +
         (s.engine == ps_sgd::Engine::kP2p       ? std::string("peer to peer")
          : s.engine == ps_sgd::Engine::kAverage ? std::string("model averaging")
                                                 : std::to_string(s.servers) + " servers") +
         (s.engine == ps_sgd::Engine::kAverage ? std::string() : ", barrier " + s.barrier.name()) +
         (sampling_ == "per-step" ? " (per-step sampling)" : "") + ", " +
         (job.cluster ? std::string("processes over tcp") : transport_);
}

ps_sgd::Options progress(report::MetricsLog* metrics, const bool& quiet, std::string barrier) {
  ps_sgd::Options options;
  options.on_evaluation = [metrics, &quiet, barrier = std::move(barrier)](const ps_sgd::Evaluation& e) {
    if (metrics)
      metrics->write({{"step", e.step}, {"updates", e.updates}, {"seconds", e.seconds}, {"loss", e.fit.loss},
                      {"accuracy", e.fit.accuracy}, {"barrier", barrier}});
    if (!quiet) {
      std::printf("step %6lld  updates %7lld  %8.3fs  loss %.6f  accuracy %.4f\n", static_cast<long long>(e.step),
                  static_cast<long long>(e.updates), e.seconds, e.fit.loss, e.fit.accuracy);
      std::fflush(stdout);
    }
  };
  return options;
}

void use_checkpoints(const CheckpointFlags& flags, const CLI::App& app, const std::vector<std::string>& local,
                     const std::vector<std::string>& inputs, ClusterFlags::Job& job, const ps_sgd::Settings& s,
                     ps_sgd::Options& options) {
  std::optional<std::uint64_t> resumed_epoch;
  if (flags.writes()) {
    options.checkpoints.settings = flags.recorded_settings(app, local, inputs, {"--steps", "--seconds"});
    options.checkpoints.store = flags.store();
    options.checkpoints.every = flags.every();
    options.on_epoch = [&flags](std::int64_t epoch) { flags.kill_if_due(static_cast<int>(epoch)); };
  }
  if (flags.resumes()) {
    const auto found = flags.find(options.checkpoints.settings, s.workers, "gyre-" + s.name);
    options.resumed = ps_sgd::read_checkpoint(found, s.workers);
    resumed_epoch = found.manifest.epoch;
    if (job.reports())
      std::printf("gyre-%s: resuming after epoch %lld (step %lld) from %s\n", s.name.c_str(),
                  static_cast<long long>(options.resumed->epoch), static_cast<long long>(options.resumed->clock),
                  found.directory.string().c_str());
  }
  if (job.reports()) flags.prepare(resumed_epoch);
  if (!job.cluster) return;
  job.cluster->settings = flags.shared_settings(app, local, inputs);
  job.cluster->settings.emplace_back("resumed after epoch", resumed_epoch ? std::to_string(*resumed_epoch) : "none");
}

void print_worker_steps(std::span<const std::int64_t> steps, std::span<const double> held_seconds, double seconds) {
  const double held = std::accumulate(held_seconds.begin(), held_seconds.end(), 0.0);
  std::printf("worker steps: median %lld, 5th %lld, 95th %lld; held at the barrier %.0f%% of worker time\n",
              static_cast<long long>(simulation::step_quantile(steps, 0.5)),
              static_cast<long long>(simulation::step_quantile(steps, 0.05)),
              static_cast<long long>(simulation::step_quantile(steps, 0.95)),
              100 * held / (seconds * static_cast<double>(std::max<std::size_t>(steps.size(), 1))));
}

}  // namespace gyre::app
