// apps/logreg/trainer.cpp — the parameter-server program of logistic regression: push a minibatch step, evaluate on worker 0.
#include "logreg/trainer.hpp"

#include <chrono>
#include <cmath>
#include <mutex>
#include <stdexcept>
#include <thread>

#include "gyre/base/limits.hpp"
#include "gyre/data/regression_partition.hpp"
#include "gyre/net/faults.hpp"
#include "gyre/net/inproc.hpp"
#include "gyre/net/tcp.hpp"
#include "gyre/pipeline/p2p_job.hpp"
#include "gyre/pipeline/ps_job.hpp"

namespace gyre::logreg {
namespace {

using pipeline::ps::Key;
using Clock = std::chrono::steady_clock;

// An injected pause per step (a straggling machine), drawn per worker from its own stream.
class StepDelay {
 public:
  StepDelay(const net::FaultSpec& spec, std::uint64_t seed) : spec_(spec), random_(seed, 0) {}
  // Never past `deadline`: a pause must not outlast the run's time limit.
  void pause(Clock::time_point deadline) {
    if (spec_.delay == net::FaultSpec::Delay::kNone) return;
    const double ms = spec_.draw_ms(random_);
    const auto wanted = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double, std::milli>(ms));
    std::this_thread::sleep_until(std::min(wanted, deadline));
  }

 private:
  net::FaultSpec spec_;
  Random random_;
};

runtime::Backend backend_of(const LogregConfig& c) {
  if (c.transport == Transport::kInproc) return runtime::ThreadsBackend{};
  runtime::LoopbackBackend loopback;
  loopback.tcp.job_id = "gyre-logreg";
  loopback.tcp.token = "loopback";
  return loopback;
}

// Stops a run whose weights are no longer numbers (a learning rate far too large), before a
// model of NaNs is written; thrown from a worker, it fails the whole job.
void require_finite(double value, std::int64_t step) {
  if (std::isfinite(value)) return;
  throw std::runtime_error("training diverged" + (step >= 0 ? " at step " + std::to_string(step) : std::string()) +
                           ": the loss or a weight is " + std::to_string(value) +
                           " (a smaller learning rate may help); no model is written");
}

}  // namespace

void LogregConfig::validate() const {
  if (workers < 1 || servers < 1 || workers > kMaxWorkers || servers > kMaxWorkers)
    throw std::invalid_argument("logreg: workers and servers must be in 1.." + std::to_string(kMaxWorkers));
  if (!(learning_rate > 0) || !(l2 >= 0) || !(decay >= 0) || !std::isfinite(learning_rate) || !std::isfinite(l2) ||
      !std::isfinite(decay))
    throw std::invalid_argument("logreg: learning rate must be finite and > 0, l2 and decay finite and ≥ 0");
  if (!(max_seconds >= 0) || !std::isfinite(max_seconds)) throw std::invalid_argument("logreg: seconds must be finite and ≥ 0");
  if (batch < 1 || max_steps < 1 || eval_every < 1 || block < 1) throw std::invalid_argument("logreg: batch, steps, eval-every and block must be ≥ 1");
  net::FaultSpec::parse_delay(step_delay);
}

namespace {

// What either engine hands back: the weights' keys by key, and per worker its steps and time held.
struct Outcome {
  std::vector<pipeline::ps::Value> values;
  std::vector<std::int64_t> steps;
  std::vector<double> held_seconds;
};

template <class Report>
void add_reports(Outcome& o, const std::vector<Report>& reports) {
  for (const auto& w : reports) {
    o.steps.push_back(w.steps);
    o.held_seconds.push_back(std::chrono::duration<double>(w.held).count());
  }
}

// How the job runs: on the parameter server (`ps`) or peer to peer (`p2p`), in this process or
// across processes. Returns the whole model where it is known (nullopt on the other processes).
struct Engines {
  std::function<std::optional<pipeline::ps::PsJobResult>(const pipeline::ps::PsLayout&, const pipeline::ps::PsProgram&,
                                                         const pipeline::ps::PsJobOptions&)>
      ps;
  std::function<std::optional<pipeline::p2p::P2pJobResult>(const pipeline::p2p::P2pLayout&, const pipeline::p2p::P2pProgram&,
                                                            const pipeline::p2p::P2pJobOptions&)>
      p2p;
};

std::optional<LogregRun> train_with(const data::RegressionSet& set, const data::RegressionSet& eval, const LogregConfig& c,
                                    const TrainOptions& options, const Engines& engines) {
  c.validate();
  if (set.samples() == 0) throw std::invalid_argument("logreg: no training samples");
  if (static_cast<std::uint64_t>(c.workers) > set.samples())
    throw std::invalid_argument("logreg: " + std::to_string(c.workers) + " workers but only " +
                                std::to_string(set.samples()) + " samples: at most one worker per sample");
  if (eval.features > set.features)
    throw std::invalid_argument("logreg: the evaluation set has feature " + std::to_string(eval.features) +
                                " beyond the training set's " + std::to_string(set.features));
  const std::uint32_t p = set.features;
  const std::size_t width = std::size_t{p} + 1;  // weights and the bias
  const Key key_count = (width + c.block - 1) / c.block;
  const auto shards = data::deal_rows(set, static_cast<std::uint32_t>(c.workers));
  const auto delay_spec = net::FaultSpec::parse_delay(c.step_delay);
  const auto started = Clock::now();
  const auto seconds = [&] { return std::chrono::duration<double>(Clock::now() - started).count(); };
  const auto deadline = c.max_seconds > 0 ? started + std::chrono::duration_cast<Clock::duration>(
                                                          std::chrono::duration<double>(c.max_seconds))
                                          : Clock::time_point::max();

  LogregRun run;
  std::mutex mutex;
  struct WorkerState {
    Random random;
    StepDelay delay;
  };
  std::vector<WorkerState> state;
  for (int w = 0; w < c.workers; ++w)
    state.push_back({Random(c.seed * 7919, static_cast<std::uint64_t>(w)),
                     StepDelay(delay_spec, c.seed * 104729 + static_cast<std::uint64_t>(w))});

  // One step of either engine's worker (PsWorker or P2pPeer: index, clock, get).
  const auto step = [&](auto& worker, std::span<const Key> keys) {
    auto& mine = state[static_cast<std::size_t>(worker.index())];
    mine.delay.pause(deadline);
    std::vector<double> w(key_count * c.block);
    const auto values = worker.get(keys);
    for (std::size_t i = 0; i < keys.size(); ++i)
      std::copy(values[i].value.begin(), values[i].value.end(), w.begin() + static_cast<std::ptrdiff_t>(keys[i] * c.block));
    if (worker.index() == 0 && worker.clock() % c.eval_every == 0) {
      Evaluation e{worker.clock(), seconds(), evaluate(eval, std::span(w).first(p), w[p], c.l2)};
      require_finite(e.fit.loss, e.step);
      {
        std::lock_guard lock(mutex);
        run.evaluations.push_back(e);
      }
      if (options.on_evaluation) options.on_evaluation(e);
    }
    const auto& rows = shards[static_cast<std::size_t>(worker.index())];
    std::vector<std::uint32_t> batch(static_cast<std::size_t>(c.batch));
    for (auto& r : batch) r = rows.empty() ? 0 : rows[mine.random.below(rows.size())];
    std::vector<double> gradient(w.size(), 0.0);
    if (!rows.empty()) add_gradient(set, batch, std::span(w).first(p), w[p], std::span(gradient).first(p), gradient[p]);
    const double eta = c.learning_rate / (1 + c.decay * static_cast<double>(worker.clock())) / c.workers;
    pipeline::ps::KeyValues updates;
    for (Key k : keys) {
      pipeline::ps::Value delta(c.block);
      for (std::uint32_t i = 0; i < c.block; ++i) {
        const std::size_t j = k * c.block + i;
        const double penalty = j < p ? c.l2 * w[j] : 0.0;
        delta[i] = -eta * (gradient[j] / c.batch + penalty);
      }
      updates.emplace_back(k, std::move(delta));
    }
    return updates;
  };
  const auto stop = [&](std::int64_t clock) { return clock >= c.max_steps || (c.max_seconds > 0 && seconds() >= c.max_seconds); };

  std::optional<Outcome> outcome;
  if (c.engine == Engine::kPs) {
    pipeline::ps::PsLayout layout;
    layout.workers = c.workers;
    layout.servers = c.servers;
    layout.value_size = c.block;
    layout.keys = key_count;
    pipeline::ps::PsProgram program;
    program.push = [&](pipeline::ps::PsWorker& worker, std::span<const Key> k) { return step(worker, k); };
    program.stop = [&](pipeline::ps::PsWorker& worker) { return stop(worker.clock()); };
    pipeline::ps::PsJobOptions o;
    o.barrier = c.barrier;
    o.seed = c.seed;
    if (auto r = engines.ps(layout, program, o)) {
      outcome = Outcome{std::move(r->values), {}, {}};
      add_reports(*outcome, r->workers);
    }
  } else {
    pipeline::p2p::P2pLayout layout;
    layout.peers = c.workers;
    layout.value_size = c.block;
    layout.keys = key_count;
    pipeline::p2p::P2pProgram program;
    program.push = [&](pipeline::p2p::P2pPeer& peer, std::span<const Key> k) { return step(peer, k); };
    program.stop = [&](pipeline::p2p::P2pPeer& peer) { return stop(peer.clock()); };
    pipeline::p2p::P2pJobOptions o;
    o.barrier = c.barrier;
    o.seed = c.seed;
    if (auto r = engines.p2p(layout, program, o)) {
      outcome = Outcome{std::move(r->values), {}, {}};
      add_reports(*outcome, r->peers);
    }
  }
  if (!outcome) return std::nullopt;
  run.seconds = seconds();
  run.weights.assign(width, 0.0);
  for (std::size_t j = 0; j < width; ++j) run.weights[j] = outcome->values[j / c.block][j % c.block];
  run.steps = std::move(outcome->steps);
  run.held_seconds = std::move(outcome->held_seconds);
  run.fit = evaluate(eval, std::span(run.weights).first(p), run.weights[p], c.l2);
  for (const double w : run.weights) require_finite(w, -1);
  require_finite(run.fit.loss, -1);
  return run;
}

}  // namespace

LogregRun train(const data::RegressionSet& set, const data::RegressionSet& eval, const LogregConfig& config,
                const TrainOptions& options) {
  Engines engines;
  engines.ps = [&](const auto& layout, const auto& program, const auto& o) {
    return std::optional(pipeline::ps::run_ps(pipeline::ps::ps_job(layout, backend_of(config)), layout, program, o));
  };
  engines.p2p = [&](const auto& layout, const auto& program, const auto& o) {
    return std::optional(pipeline::p2p::run_p2p(pipeline::p2p::p2p_job(layout, backend_of(config)), layout, program, o));
  };
  return *train_with(set, eval, config, options, engines);
}

std::optional<LogregRun> train_cluster(const data::RegressionSet& set, const data::RegressionSet& eval,
                                       const LogregConfig& config, const TrainOptions& options,
                                       const pipeline::ClusterJobOptions& cluster) {
  if (config.engine != Engine::kPs)
    throw std::invalid_argument("logreg: the peer-to-peer engine runs in one process (threads or --transport tcp) for now");
  Engines engines;
  engines.ps = [&](const auto& layout, const auto& program, const auto& o) {
    return pipeline::ps::run_ps_cluster(pipeline::processes_backend(cluster), layout, program, o);
  };
  return train_with(set, eval, config, options, engines);
}

}  // namespace gyre::logreg
