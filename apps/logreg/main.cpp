// apps/logreg/main.cpp — gyre-logreg: logistic regression by data-parallel SGD on the parameter server or peer to peer (thin wrapper over gyre::logreg).
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <memory>
#include <optional>
#include <numeric>
#include <string>
#include <thread>

#include "app/cluster_flags.hpp"
#include "app/command_line.hpp"
#include "app/job_settings.hpp"
#include "gyre/base/output_file.hpp"
#include "gyre/cluster/launch.hpp"
#include "gyre/base/entry_point.hpp"
#include "gyre/base/limits.hpp"
#include "gyre/base/output_check.hpp"
#include "gyre/data/id_space.hpp"
#include "gyre/data/regression.hpp"
#include "gyre/report/metrics_log.hpp"
#include "gyre/scheduler/barrier_simulation.hpp"
#include "logreg/trainer.hpp"

extern char** environ;

namespace {

// One line per feature the data uses, under its index in the input (1-based).
void write_weights(const std::string& path, const gyre::data::RegressionSet& set, const gyre::data::IdTable& columns,
                   const std::vector<double>& w) {
  gyre::OutputFile f(path);
  f.stream().precision(17);
  f.stream() << "feature\tname\tweight\n0\t(bias)\t" << w.back() << '\n';
  for (std::uint32_t j = 0; j < set.features; ++j)
    f.stream() << std::uint64_t{columns.original.at(j)} + 1 << '\t'
               << (set.feature_names.empty() ? "" : set.feature_names[j]) << '\t' << w[j] << '\n';
  f.commit();
}

}  // namespace

int main(int argc, char** argv) {
  using namespace gyre;
  CLI::App app{"gyre-logreg: logistic regression by data-parallel SGD on gyre's parameter server (or peer to peer), under a barrier of\n"
               "your choice. Defaults run one process on all cores: gyre-logreg --data train.libsvm --out weights.tsv"};
  std::string data_path, test_path, engine = "ps", barrier = "bsp", sampling = "per-step", transport = "inproc", out_path, metrics_path;
  logreg::LogregConfig c;
  std::optional<int> workers;
  bool quiet = false;
  app.add_option("--data", data_path, "training data: LibSVM (labels > 0 are class 1), CSV, MatrixMarket, or a rows directory")
      ->required();
  app.add_option("--test", test_path, "evaluate on this set instead of the training set");
  app.add_option("--workers,-p", workers, "data-parallel workers (default: all cores, or one per process)")
      ->check(CLI::Range(1, kMaxWorkers));
  app.add_option("--engine", engine,
                 "ps (weights on parameter servers) or p2p (peer to peer: every worker owns a part of the weights, no server)")
      ->check(CLI::IsMember({"ps", "p2p"}))->capture_default_str();
  app.add_option("--servers", c.servers, "parameter-server shards (--engine ps)")->capture_default_str()->check(CLI::Range(1, 1024));
  app.add_option("--barrier", barrier, "bsp, ssp:S, asp, pbsp:BETA or pssp:BETA:S")->capture_default_str();
  app.add_option("--sampling", sampling,
                 "pBSP/pSSP: a held worker draws its peers per-step (once, then waits for those) or per-check (afresh "
                 "each time it looks again)")
      ->check(CLI::IsMember({"per-step", "per-check"}))->capture_default_str();
  app.add_option("--lr", c.learning_rate, "learning rate η")->capture_default_str()->check(app::positive_number());
  app.add_option("--decay", c.decay, "step c uses η / (1 + decay·c)")->capture_default_str()->check(app::non_negative_number());
  app.add_option("--l2", c.l2, "L2 penalty λ")->capture_default_str()->check(app::non_negative_number());
  app.add_option("--batch", c.batch, "rows per worker per step")->capture_default_str()->check(CLI::Range(1, 1 << 24));
  app.add_option("--steps", c.max_steps, "steps per worker")->capture_default_str()->check(CLI::Range(std::int64_t{1}, std::int64_t{1} << 40));
  app.add_option("--seconds", c.max_seconds, "also stop after this much wall time (0: no limit)")
      ->capture_default_str()->check(CLI::Range(0.0, 1e7));
  app.add_option("--eval-every", c.eval_every, "worker 0 evaluates every N steps")->capture_default_str()->check(CLI::Range(1, 1 << 30));
  app.add_option("--block", c.block, "weights per parameter-server key")->capture_default_str()->check(CLI::Range(1u, 1u << 20));
  app.add_option("--step-delay", c.step_delay,
                 "injected straggling per step, in ms: none, fixed:MS, uniform:LO:HI, gamma:SHAPE:SCALE")
      ->capture_default_str();
  app.add_option("--transport", transport, "inproc (threads) or tcp (every rank in this process, over loopback)")
      ->check(CLI::IsMember({"inproc", "tcp"}))->capture_default_str();
  app.add_option("--seed", c.seed, "random seed (batches, samples, delays)")->capture_default_str();
  app.add_option("--out,-o", out_path, "weights, tab-separated: feature (0 = bias), name, weight");
  app.add_option("--metrics", metrics_path, "JSON lines, one per evaluation: step, seconds, loss, accuracy, barrier");
  app.add_flag("--quiet,-q", quiet, "no per-evaluation lines");
  app::ClusterFlags multi("gyre-logreg");
  multi.add_to(app);
  if (const auto exit_code = gyre::app::parse_command_line(app, argc, argv)) return *exit_code;
  // The only place gyre-logreg looks at the environment; the library gets explicit settings.
  const auto env = cluster::environment_of(environ);

  return run_entry_point("gyre-logreg", [&] {
    auto job = multi.job(env, workers, c.seed);  // before the data: a bad job is refused at once
    if (job.cluster)
      job.cluster->settings =
          app::job_settings(app, {"--out", "--metrics", "--quiet"},
                            {"--data", "--test"});
    c.workers = job.cluster || workers ? job.workers : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    if (job.cluster && transport == "tcp") throw std::invalid_argument("--transport tcp is for one process; several processes always use tcp");
    quiet = quiet || !job.reports();
    c.barrier = scheduler::Barrier(scheduler::BarrierSpec::parse(barrier), scheduler::parse_sampling(sampling));
    c.transport = transport == "tcp" ? logreg::Transport::kTcp : logreg::Transport::kInproc;
    c.engine = engine == "p2p" ? logreg::Engine::kP2p : logreg::Engine::kPs;
    if (job.cluster && c.engine == logreg::Engine::kP2p)
      throw std::invalid_argument("--engine p2p runs in one process for now (threads, or --transport tcp over loopback)");
    c.validate();
    if (job.reports()) {
      const OutputSpec outputs[] = {{"--out", out_path}, {"--metrics", metrics_path}};
      const std::filesystem::path inputs[] = {data_path, test_path, multi.token_file()};
      check_outputs(outputs, inputs);
    }
    auto set = data::load_regression(data_path);
    auto test = test_path.empty() ? data::RegressionSet{} : data::load_regression(test_path);
    // One column space for both, over the columns either uses: the model is as wide as the
    // data, not as the largest feature index.
    std::vector<data::RegressionSet*> sets{&set};
    if (!test_path.empty()) sets.push_back(&test);
    const data::IdTable columns = data::compact_features(sets);
    const auto& eval = test_path.empty() ? set : test;
    if (job.reports())
      std::printf("gyre-logreg: %llu samples, %u features; %d workers, %s, barrier %s%s, %s\n",
                  static_cast<unsigned long long>(set.samples()), set.features, c.workers,
                  c.engine == logreg::Engine::kP2p ? "peer to peer" : (std::to_string(c.servers) + " servers").c_str(),
                  c.barrier.name().c_str(), sampling == "per-check" ? " (per-check sampling)" : "",
                  job.cluster ? "processes over tcp" : transport.c_str());
    std::fflush(stdout);
    std::unique_ptr<report::MetricsLog> metrics;
    if (!metrics_path.empty() && job.reports()) metrics = std::make_unique<report::MetricsLog>(metrics_path);
    logreg::TrainOptions options;
    options.on_evaluation = [&](const logreg::Evaluation& e) {
      if (metrics)
        metrics->write({{"step", e.step}, {"seconds", e.seconds}, {"loss", e.fit.loss}, {"accuracy", e.fit.accuracy},
                        {"barrier", c.barrier.name()}});
      if (!quiet) {
        std::printf("step %6lld  %8.3fs  loss %.6f  accuracy %.4f\n", static_cast<long long>(e.step), e.seconds,
                    e.fit.loss, e.fit.accuracy);
        std::fflush(stdout);
      }
    };
    std::optional<logreg::LogregRun> trained;
    if (job.cluster)
      trained = logreg::train_cluster(set, eval, c, options, *job.cluster);
    else
      trained = logreg::train(set, eval, c, options);
    if (!trained) return 0;  // not process 0: the model is there
    const auto& run = *trained;
    const double held = std::accumulate(run.held_seconds.begin(), run.held_seconds.end(), 0.0);
    std::printf("worker steps: median %lld, 5th %lld, 95th %lld; held at the barrier %.0f%% of worker time\n",
                static_cast<long long>(scheduler::step_quantile(run.steps, 0.5)),
                static_cast<long long>(scheduler::step_quantile(run.steps, 0.05)),
                static_cast<long long>(scheduler::step_quantile(run.steps, 0.95)),
                100 * held / (run.seconds * c.workers));
    std::printf("final: loss %.6f, accuracy %.4f after %.3f s\n", run.fit.loss, run.fit.accuracy, run.seconds);
    if (!out_path.empty()) write_weights(out_path, set, columns, run.weights);
    if (metrics) metrics->finish();
    return 0;
  });
}
