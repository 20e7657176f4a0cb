// apps/common/ps_sgd_flags.cpp — the data-parallel SGD apps' flags: engine, barrier, learning rate, straggling.
#include "app/ps_sgd_flags.hpp"

#include <algorithm>
#include <stdexcept>
#include <thread>

#include "app/command_line.hpp"
#include "gyre/base/limits.hpp"

namespace gyre::app {

void PsSgdFlags::add_to(CLI::App& app, ps_sgd::Settings& s) {
  app.add_option("--workers,-p", workers_, "data-parallel workers (default: all cores, or one per process)")
      ->check(CLI::Range(1, kMaxWorkers));
  app.add_option("--servers", s.servers, "parameter-server shards")->capture_default_str()->check(CLI::Range(1, 1024));
  app.add_option("--barrier", barrier_, "bsp, ssp:S, asp, pbsp:BETA or pssp:BETA:S")->capture_default_str();
  app.add_option("--sampling", sampling_,
                 "pBSP/pSSP: a held worker draws its peers per-step (once, then waits for those) or per-check (afresh "
                 "each time it looks again)")
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
                 "only these workers straggle (comma-separated, e.g. 1,4; default: every worker)");
  app.add_option("--transport", transport_, "inproc (threads) or tcp (every rank in this process, over loopback)")
      ->check(CLI::IsMember({"inproc", "tcp"}))->capture_default_str();
  app.add_option("--seed", s.seed, "random seed (batches, samples, delays)")->capture_default_str();
}

void PsSgdFlags::apply(const ClusterFlags::Job& job, ps_sgd::Settings& s) const {
  s.workers = job.cluster || workers_ ? job.workers : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  if (job.cluster && transport_ == "tcp")
    throw std::invalid_argument("--transport tcp is for one process; several processes always use tcp");
  s.barrier = scheduler::Barrier(scheduler::BarrierSpec::parse(barrier_), scheduler::parse_sampling(sampling_));
  s.transport = transport_ == "tcp" ? ps_sgd::Transport::kTcp : ps_sgd::Transport::kInproc;
}

}  // namespace gyre::app
