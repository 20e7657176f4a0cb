// apps/common/ps_sgd.cpp — the parameter-server program of data-parallel SGD: injected straggling, a minibatch step per push, evaluation on worker 0.
#include "app/ps_sgd.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <mutex>
#include <numeric>
#include <set>
#include <stdexcept>
#include <thread>

#include "gyre/averaging/model_averager.hpp"
#include "gyre/base/limits.hpp"
#include "gyre/base/random.hpp"
#include "gyre/collective/communicator.hpp"
#include "gyre/net/group.hpp"
#include "gyre/net/inproc.hpp"
#include "gyre/net/tcp.hpp"
#include "gyre/ps/ps_job.hpp"

namespace gyre::app::ps_sgd {
namespace {

using ps::Key;
using Clock = std::chrono::steady_clock;

// An injected pause per step (a straggling machine), drawn per worker from its own stream.
class StepDelay {
 public:
  StepDelay(const net::FaultSpec& spec, double factor, std::uint64_t seed) : spec_(spec), factor_(factor), random_(seed, 0) {}
  // Never past `deadline`: a pause must not outlast the run's time limit.
  void pause(Clock::time_point deadline) {
    if (spec_.delay == net::FaultSpec::Delay::kNone) return;
    ++draws_;
    const double ms = factor_ * spec_.draw_ms(random_);
    const auto wanted = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double, std::milli>(ms));
    std::this_thread::sleep_until(std::min(wanted, deadline));
  }
  std::uint64_t draws() const { return draws_; }
  // Draws what `draws` pauses drew, without pausing: where a resumed worker's stream stood.
  void replay(std::uint64_t draws) {
    for (; draws_ < draws; ++draws_) spec_.draw_ms(random_);
  }

 private:
  net::FaultSpec spec_;
  double factor_;
  Random random_;
  std::uint64_t draws_ = 0;
};

// A model-averaging job: the workers and no other member.
runtime::Job averaging_job(const Settings& s, runtime::Backend backend) {
  runtime::Job job;
  job.workers = s.workers;
  job.backend = std::move(backend);
  return job;
}

runtime::Backend backend_of(const Settings& s) {
  if (s.transport == Transport::kInproc) return runtime::ThreadsBackend{};
  runtime::LoopbackBackend loopback;
  loopback.tcp.job_id = "gyre-" + s.name;
  return loopback;
}

// "0,3" → {0, 3}; empty → none.
std::set<int> parse_slow_workers(const Settings& s) {
  std::set<int> slow;
  if (s.slow_workers.empty()) return slow;
  std::size_t at = 0;
  while (at <= s.slow_workers.size()) {
    const std::size_t end = std::min(s.slow_workers.find(',', at), s.slow_workers.size());
    const std::string item = s.slow_workers.substr(at, end - at);
    std::size_t used = 0;
    int w = -1;
    try {
      w = std::stoi(item, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || used != item.size() || w < 0 || w >= s.workers)
      throw std::invalid_argument(s.name + ": slow workers must be a comma-separated list of workers 0.." +
                                  std::to_string(s.workers - 1) + ", found '" + item + "'");
    slow.insert(w);
    at = end + 1;
  }
  return slow;
}

// How the job runs on either engine: in this process, or this process's part of a job across
// processes (the whole result on process 0, nullopt elsewhere).
struct Engines {
  std::function<std::optional<ps::PsJobResult>(const ps::PsLayout&, const ps::PsProgram&,
                                                         const ps::PsJobOptions&)>
      ps;
  int local_workers = 0;  // how many of the workers run in this process
  std::function<std::optional<ps::p2p::P2pJobResult>(const ps::p2p::P2pLayout&, const ps::p2p::P2pProgram&,
                                                           const ps::p2p::P2pJobOptions&)>
      p2p;
  // Model averaging: runs `part` for every worker this process hosts (the job has no other member).
  std::function<void(const std::function<void(const runtime::Member&)>& part)> workers;
};

// A worker's own replica of the model under model averaging, read the way the other engines'
// workers read theirs (index, clock, get), under the mutex its averager blends under.
// A worker of the averaging engine seen as the step sees the others' (ps::Worker): it reads and
// writes its own replica, which the averager blends with the other workers' in the background.
class ReplicaWorker final : public ps::Worker {
 public:
  ReplicaWorker(int rank, int workers, std::uint32_t block, std::vector<double>& replica, std::mutex& mutex)
      : rank_(rank), workers_(workers), block_(block), replica_(replica), mutex_(mutex) {}

  std::int64_t steps = 0;

  int index() const noexcept override { return rank_; }
  int workers() const noexcept override { return workers_; }
  std::int64_t clock() const noexcept override { return steps; }
  ps::Versioned get(Key key) override { return get(std::span<const Key>(&key, 1)).front(); }
  std::vector<ps::Versioned> get(std::span<const Key> keys) override {
    std::vector<ps::Versioned> out;
    std::lock_guard lock(mutex_);
    for (Key k : keys) {
      ps::Value v(block_, 0.0);
      for (std::uint32_t i = 0; i < block_; ++i)
        if (const std::size_t j = k * block_ + i; j < replica_.size()) v[i] = replica_[j];
      out.push_back({std::move(v), steps});
    }
    return out;
  }
  void set(Key key, ps::Value value) override {
    std::lock_guard lock(mutex_);
    for (std::uint32_t i = 0; i < block_ && i < value.size(); ++i)
      if (const std::size_t j = key * block_ + i; j < replica_.size()) replica_[j] = value[i];
  }
  void push(Key key, std::span<const double> delta) override {
    std::lock_guard lock(mutex_);
    for (std::uint32_t i = 0; i < block_ && i < delta.size(); ++i)
      if (const std::size_t j = key * block_ + i; j < replica_.size()) replica_[j] += delta[i];
  }
  std::vector<Key> keys() override {
    std::vector<Key> all((replica_.size() + block_ - 1) / block_);
    std::iota(all.begin(), all.end(), Key{0});
    return all;
  }

 private:
  int rank_, workers_;
  std::uint32_t block_;
  std::vector<double>& replica_;
  std::mutex& mutex_;
};

// What a worker reports under model averaging: its steps; nobody is held at a barrier.
struct ReplicaReport {
  std::int64_t steps = 0;
  std::chrono::nanoseconds held{0};
};

// What either engine hands back: the values by key, and per worker its steps and time held.
struct Outcome {
  std::vector<ps::Value> values;
  std::vector<std::int64_t> steps;
  std::vector<double> held_seconds;
  template <class Report>
  Outcome(std::vector<ps::Value> v, const std::vector<Report>& reports) : values(std::move(v)) {
    for (const auto& w : reports) {
      steps.push_back(w.steps);
      held_seconds.push_back(std::chrono::duration<double>(w.held).count());
    }
  }
};

// How many steps after an epoch's last clock worker 0 knows every worker has finished it: the
// barrier's staleness + 1 (BSP 1, SSP(s) s + 1).
std::int64_t lag_of(const ps::Barrier& barrier) {
  constexpr std::int64_t far = std::int64_t{1} << 40;
  return far - barrier.required(far) + 1;
}

// The run's checkpoints, if it takes any; refused where no consistent cut can be found.
std::shared_ptr<const EpochCheckpointer> checkpointer_of(const Model& m, const Settings& c, const Options& options) {
  if (options.resumed && options.resumed->draws.size() != static_cast<std::size_t>(c.workers))
    throw std::invalid_argument(c.name + ": the checkpoint resumed from has another number of workers");
  if (options.resumed && options.resumed->parameters.size() != m.width)
    throw std::invalid_argument(c.name + ": the checkpoint resumed from holds another model");
  if (options.resumed && options.resumed->clock >= c.max_steps)
    throw std::invalid_argument(c.name + ": the checkpoint resumed from is at step " + std::to_string(options.resumed->clock) +
                                " already: --steps is the total to reach, give more");
  if (!options.checkpoints.store && !options.resumed) return nullptr;
  if (c.engine != Engine::kPs)
    throw std::invalid_argument(c.name + ": checkpoints and resume work on the parameter-server engine only (--engine ps)");
  if (!c.barrier.global())
    throw std::invalid_argument(c.name + ": checkpoints need a barrier that bounds every worker's clock (bsp or ssp:S), not " +
                                c.barrier.name());
  const std::int64_t start = options.resumed ? options.resumed->clock : 0;
  return std::make_shared<const EpochCheckpointer>(options.checkpoints, c.workers, clocks_per_epoch(m, c),
                                                   lag_of(c.barrier), start, options.on_epoch);
}

// A table of keys per layer with that layer's rule (Settings::layer_barriers): key k is in the
// layer of parameter k·block, so a layer that begins inside a key starts at the next one (and a
// layer narrower than that has no key of its own: it is read by its neighbour's rule).
std::vector<ps::Table> layer_tables(const Model& m, const Settings& c, Key key_count) {
  std::vector<ps::Table> tables;
  if (c.layer_barriers.empty()) return tables;
  if (c.engine == Engine::kAverage) throw std::invalid_argument(c.name + ": staleness per layer needs a barrier (--engine ps or p2p)");
  const std::vector<std::size_t> starts = m.layers.empty() ? std::vector<std::size_t>{0} : m.layers;
  if (c.layer_barriers.size() != starts.size())
    throw std::invalid_argument(c.name + ": " + std::to_string(c.layer_barriers.size()) + " staleness rules for a model of " +
                                std::to_string(starts.size()) + " layers");
  for (std::size_t i = 0; i < starts.size(); ++i) {
    const Key first = (starts[i] + c.block - 1) / c.block;
    const Key end = i + 1 < starts.size() ? std::min<Key>((starts[i + 1] + c.block - 1) / c.block, key_count) : key_count;
    if (first < end) tables.push_back(ps::Table{"layer " + std::to_string(i + 1), first, end - first, c.layer_barriers[i]});
  }
  return tables;
}

std::optional<Run> train_with(const Model& m, const Settings& c, const Options& options, const Engines& engines) {
  c.validate();
  if (m.width == 0) throw std::invalid_argument(c.name + ": a model without parameters");
  if (!m.initial.empty() && m.initial.size() != m.width) throw std::invalid_argument(c.name + ": initial values not as wide as the model");
  if (m.shards.size() != static_cast<std::size_t>(c.workers)) throw std::invalid_argument(c.name + ": one shard per worker");
  const Key key_count = (m.width + c.block - 1) / c.block;
  const auto delay_spec = net::FaultSpec::parse_delay(c.step_delay);
  const auto slow = parse_slow_workers(c);
  const std::int64_t start = options.resumed ? options.resumed->clock : 0;  // steps done before this run
  const auto checkpointer = checkpointer_of(m, c, options);
  const auto started = Clock::now();
  const auto seconds = [&] { return std::chrono::duration<double>(Clock::now() - started).count(); };
  const auto deadline = c.max_seconds > 0 ? started + std::chrono::duration_cast<Clock::duration>(
                                                          std::chrono::duration<double>(c.max_seconds))
                                          : Clock::time_point::max();

  Run run;
  std::mutex mutex;
  std::atomic<std::int64_t> updates{start * engines.local_workers};
  struct WorkerState {
    Random random;
    StepDelay delay;
    std::uint64_t rows_drawn = 0;
    std::uint64_t draw_row(std::uint64_t n) {
      ++rows_drawn;
      return random.below(n);
    }
  };
  std::vector<WorkerState> state;
  for (int w = 0; w < c.workers; ++w) {
    state.push_back({Random(c.seed * 7919, static_cast<std::uint64_t>(w)),
                     StepDelay(delay_spec, slow.contains(w) ? c.slow_factor : 1.0, c.seed * 104729 + static_cast<std::uint64_t>(w))});
    if (!options.resumed) continue;
    const WorkerDraws& drawn = options.resumed->draws.at(static_cast<std::size_t>(w));
    for (auto& s = state.back(); s.rows_drawn < drawn.rows; ++s.rows_drawn) s.random.next();
    state.back().delay.replay(drawn.delays);
  }
  const std::vector<double>& start_values = options.resumed ? options.resumed->parameters : m.initial;

  const auto initial = [&](Key k) {
    ps::Value v(c.block, 0.0);
    for (std::uint32_t i = 0; i < c.block; ++i)
      if (const std::size_t j = k * c.block + i; j < m.width) v[i] = start_values[j];
    return v;
  };
  // One step of either engine's worker.
  const auto step = [&](ps::Worker& worker, std::span<const Key> keys) {
    auto& mine = state[static_cast<std::size_t>(worker.index())];
    const WorkerDraws drawn{mine.rows_drawn, mine.delay.draws()};  // before this step's
    const std::int64_t clock = start + worker.clock();                // over the model's life
    mine.delay.pause(deadline);
    std::vector<double> w(key_count * c.block);
    const auto values = worker.get(keys);
    for (std::size_t i = 0; i < keys.size(); ++i)
      std::copy(values[i].value.begin(), values[i].value.end(), w.begin() + static_cast<std::ptrdiff_t>(keys[i] * c.block));
    const auto model = std::span<const double>(w).first(m.width);
    if (checkpointer) checkpointer->at_step(worker.index(), clock, model, drawn);
    if (worker.index() == 0 && clock % c.eval_every == 0) {
      Evaluation e{clock, updates.load(), seconds(), m.evaluate(model)};
      require_finite(e.fit.loss, e.step);
      {
        std::lock_guard lock(mutex);
        run.evaluations.push_back(e);
      }
      if (options.on_evaluation) options.on_evaluation(e);
    }
    const auto& rows = m.shards[static_cast<std::size_t>(worker.index())];
    std::vector<double> gradient(w.size(), 0.0);
    if (!rows.empty()) {
      std::vector<std::uint32_t> batch(static_cast<std::size_t>(c.batch));
      for (auto& r : batch) r = rows[mine.draw_row(rows.size())];
      m.gradient(model, batch, std::span(gradient).first(m.width));
    }
    const double eta = c.learning_rate / (1 + c.decay * static_cast<double>(clock)) / c.workers;
    ps::KeyValues pushed;
    for (Key k : keys) {
      ps::Value delta(c.block);
      for (std::uint32_t i = 0; i < c.block; ++i) delta[i] = -eta * gradient[k * c.block + i];
      pushed.emplace_back(k, std::move(delta));
    }
    ++updates;
    return pushed;
  };
  const auto stop = [&](std::int64_t engine_clock) {
    return start + engine_clock >= c.max_steps || (c.max_seconds > 0 && seconds() >= c.max_seconds);
  };

  const auto tables = layer_tables(m, c, key_count);
  std::optional<Outcome> outcome;
  if (c.engine == Engine::kPs) {
    ps::PsLayout layout;
    layout.workers = c.workers;
    layout.servers = c.servers;
    layout.value_size = c.block;
    layout.keys = key_count;
    ps::PsProgram program;
    if (!start_values.empty()) program.initial = initial;
    program.push = step;
    program.stop = [&](ps::Worker& worker) { return stop(worker.clock()); };
    ps::PsJobOptions o;
    o.barrier = c.barrier;
    o.tables = tables;
    o.seed = c.seed;
    // Under BSP the servers fold each step's pushes in worker order (the default): the run
    // repeats bit for bit, with any number of workers (and a resume continues it).
    if (auto r = engines.ps(layout, program, o)) outcome.emplace(std::move(r->values), r->workers);
  } else if (c.engine == Engine::kP2p) {
    ps::p2p::P2pLayout layout;
    layout.peers = c.workers;
    layout.value_size = c.block;
    layout.keys = key_count;
    ps::p2p::P2pProgram program;
    if (!m.initial.empty()) program.initial = initial;
    program.push = step;
    program.stop = [&](ps::Worker& peer) { return stop(peer.clock()); };
    ps::p2p::P2pJobOptions o;
    o.barrier = c.barrier;
    o.tables = tables;
    o.seed = c.seed;
    if (auto r = engines.p2p(layout, program, o)) outcome.emplace(std::move(r->values), r->peers);
  } else {
    engines.workers([&](const runtime::Member& member) {
      const int P = c.workers;
      std::vector<double> replica(m.width, 0.0);
      if (!start_values.empty()) replica = start_values;
      std::mutex replica_mutex;
      std::vector<int> ranks(static_cast<std::size_t>(P));
      std::iota(ranks.begin(), ranks.end(), 0);
      ReplicaWorker worker(member.rank, P, c.block, replica, replica_mutex);
      std::vector<Key> keys(key_count);
      std::iota(keys.begin(), keys.end(), Key{0});
      {
        averaging::ModelAverager averager(member.mailbox, ranks, replica, replica_mutex);
        while (!stop(worker.clock())) {
          // A step pushes −η/P·gradient for servers that add every worker's; a replica takes
          // the whole step −η·gradient itself.
          const auto pushed = step(worker, keys);
          std::lock_guard lock(replica_mutex);
          for (const auto& [k, delta] : pushed)
            for (std::uint32_t i = 0; i < c.block; ++i)
              if (const std::size_t j = k * c.block + i; j < m.width) replica[j] += delta[i] * P;
          ++worker.steps;
          averager.round_soon();
        }
        averager.stop();
      }
      // The model is the replicas' mean; with it, every worker's steps (its own slot).
      std::vector<double> totals(m.width + static_cast<std::size_t>(P), 0.0);
      std::copy(replica.begin(), replica.end(), totals.begin());
      totals[m.width + static_cast<std::size_t>(member.rank)] = static_cast<double>(worker.steps);
      collective::Communicator(member.mailbox, ranks).allreduce_sum(std::span<double>(totals));
      if (member.rank != 0) return;  // the process hosting worker 0 reports
      std::vector<ps::Value> values(key_count, ps::Value(c.block, 0.0));
      for (std::size_t j = 0; j < m.width; ++j) values[j / c.block][j % c.block] = totals[j] / P;
      std::vector<ReplicaReport> reports(static_cast<std::size_t>(P));
      for (int w = 0; w < P; ++w)
        reports[static_cast<std::size_t>(w)].steps = static_cast<std::int64_t>(totals[m.width + static_cast<std::size_t>(w)]);
      outcome.emplace(std::move(values), reports);
    });
  }
  if (!outcome) return std::nullopt;
  run.seconds = seconds();
  run.parameters.assign(m.width, 0.0);
  for (std::size_t j = 0; j < m.width; ++j) run.parameters[j] = outcome->values[j / c.block][j % c.block];
  run.steps = std::move(outcome->steps);
  for (auto& s : run.steps) s += start;
  run.held_seconds = std::move(outcome->held_seconds);
  // Every step pushes once (process 0 has every worker's report on either engine).
  run.updates = 0;
  for (const std::int64_t s : run.steps) run.updates += s;
  for (const double w : run.parameters) require_finite(w, -1);
  run.fit = m.evaluate(run.parameters);
  require_finite(run.fit.loss, -1);
  return run;
}

}  // namespace

std::int64_t clocks_per_epoch(const Model& model, const Settings& settings) {
  std::size_t largest = 0;
  for (const auto& rows : model.shards) largest = std::max(largest, rows.size());
  const auto batch = static_cast<std::size_t>(std::max(settings.batch, 1));
  return static_cast<std::int64_t>(std::max<std::size_t>(1, (largest + batch - 1) / batch));
}

void require_finite(double value, std::int64_t step) {
  if (std::isfinite(value)) return;
  throw std::runtime_error("training diverged" + (step >= 0 ? " at step " + std::to_string(step) : std::string()) +
                           ": the loss or a weight is " + std::to_string(value) +
                           " (a smaller learning rate may help); no model is written");
}

void Settings::validate() const {
  if (workers < 1 || servers < 1 || workers > kMaxWorkers || servers > kMaxWorkers)
    throw std::invalid_argument(name + ": workers and servers must be in 1.." + std::to_string(kMaxWorkers));
  if (!(learning_rate > 0) || !(decay >= 0) || !std::isfinite(learning_rate) || !std::isfinite(decay))
    throw std::invalid_argument(name + ": learning rate must be finite and > 0, decay finite and ≥ 0");
  if (!(max_seconds >= 0) || !std::isfinite(max_seconds)) throw std::invalid_argument(name + ": seconds must be finite and ≥ 0");
  if (batch < 1 || max_steps < 1 || eval_every < 1 || block < 1)
    throw std::invalid_argument(name + ": batch, steps, eval-every and block must be ≥ 1");
  net::FaultSpec::parse_delay(step_delay);
  parse_slow_workers(*this);
  if (!(slow_factor >= 0 && slow_factor <= 1000)) throw std::invalid_argument(name + ": slow factor must be in 0..1000");
}

Run train(const Model& model, const Settings& settings, const Options& options) {
  Engines engines;
  engines.ps = [&](const auto& layout, const auto& program, const auto& o) {
    return ps::run_ps(ps::ps_job(layout, backend_of(settings)), layout, program, o);
  };
  engines.local_workers = settings.workers;
  engines.p2p = [&](const auto& layout, const auto& program, const auto& o) {
    return ps::p2p::run_p2p(ps::p2p::p2p_job(layout, backend_of(settings)), layout, program, o);
  };
  engines.workers = [&](const auto& part) { runtime::run(averaging_job(settings, backend_of(settings)), part); };
  return *train_with(model, settings, options, engines);
}

std::optional<Run> train_cluster(const Model& model, const Settings& settings, const Options& options,
                                 const rotation::ClusterJobOptions& cluster) {
  Engines engines;
  engines.ps = [&](const auto& layout, const auto& program, const auto& o) {
    return ps::run_ps(ps::ps_job(layout, rotation::processes_backend(cluster)), layout, program, o);
  };
  engines.p2p = [&](const auto& layout, const auto& program, const auto& o) {
    return ps::p2p::run_p2p(ps::p2p::p2p_job(layout, rotation::processes_backend(cluster)), layout, program, o);
  };
  engines.workers = [&](const auto& part) {
    runtime::run(averaging_job(settings, rotation::processes_backend(cluster)), part);
  };
  engines.local_workers = 1;
  return train_with(model, settings, options, engines);
}

}  // namespace gyre::app::ps_sgd
