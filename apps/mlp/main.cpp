// apps/mlp/main.cpp — gyre-mlp: a small perceptron trained by data-parallel SGD on the parameter server (thin wrapper over gyre::mlp).
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "app/cluster_flags.hpp"
#include "app/command_line.hpp"
#include "app/entry_point.hpp"
#include "app/job_settings.hpp"
#include "app/ps_sgd_flags.hpp"
#include "gyre/base/output_check.hpp"
#include "gyre/base/output_file.hpp"
#include "gyre/cluster/launch.hpp"
#include "gyre/report/metrics_log.hpp"
#include "gyre/simulation/barrier_simulation.hpp"
#include "mlp/trainer.hpp"

extern char** environ;

namespace {

// The flat parameters, one per line, after a line naming the shape.
void write_model(const std::string& path, const gyre::mlp::MlpRun& r) {
  gyre::OutputFile f(path);
  f.stream().precision(17);
  f.stream() << "# gyre-mlp: inputs " << r.shape.inputs << " hidden " << r.shape.hidden << " classes " << r.shape.classes
             << " input_scale " << r.shape.input_scale << "; W1 b1 W2 b2, row-major\n";
  for (const double p : r.run.parameters) f.stream() << p << '\n';
  f.commit();
}

}  // namespace

int main(int argc, char** argv) {
  using namespace gyre;
  CLI::App app{"gyre-mlp: a one-hidden-layer perceptron (ReLU, softmax) trained by data-parallel SGD on gyre's\n"
               "parameter server, under a barrier of your choice: gyre-mlp --train digits.train.csv --test digits.test.csv"};
  std::string train_path, test_path, out_path, metrics_path;
  mlp::MlpConfig c;
  c.max_steps = 500;
  c.eval_every = 20;
  app::PsSgdFlags sgd;
  std::vector<std::int64_t> staleness;
  int classes = 10;
  bool quiet = false;
  app.add_option("--train", train_path, "training data: CSV lines \"label,x1,...,xd\" (tools/data/convert-digits.py)")
      ->required();
  app.add_option("--test", test_path, "evaluate on this set instead of the training set");
  app.add_option("--classes", classes, "labels are 0 … classes−1")->capture_default_str()->check(CLI::Range(2, 1 << 16));
  app.add_option("--hidden", c.hidden, "hidden ReLU units")->capture_default_str()->check(CLI::Range(1, 1 << 16));
  app.add_option("--l2", c.l2, "L2 penalty λ on the weights")->capture_default_str()->check(app::non_negative_number());
  app.add_option("--init-seed", c.init_seed, "seed of the starting weights (0: --seed)")->capture_default_str();
  sgd.add_to(app, c);
  app.add_option("--staleness", staleness,
                 "staleness per layer, hidden then output, e.g. 0,3: each layer's reads follow SSP(S) (0: BSP) as a "
                 "table of its own; the steps follow --barrier, by default SSP of the largest")
      ->delimiter(',')->expected(2)->check(CLI::Range(std::int64_t{0}, std::int64_t{1} << 20));
  app.add_option("--out,-o", out_path, "the trained parameters, one per line");
  app.add_option("--metrics", metrics_path,
                 "JSON lines, one per evaluation: step, updates, seconds, loss, accuracy, barrier");
  app.add_flag("--quiet,-q", quiet, "no per-evaluation lines");
  app::CheckpointFlags checkpoints;
  checkpoints.add_to(app);
  app::ClusterFlags multi("gyre-mlp");
  multi.add_to(app);
  if (const auto exit_code = gyre::app::parse_command_line(app, argc, argv)) return *exit_code;
  const auto env = cluster::environment_of(environ);

  return app::run_entry_point("gyre-mlp", [&] {
    auto job = multi.job(env, sgd.workers(), c.seed);
    sgd.apply(job, c);
    std::string rules = c.barrier.name();  // as the metrics name them
    std::string layers;                    // the layers' rules, "bsp,ssp:3"
    if (!staleness.empty()) {
      c.layer_barriers.clear();
      for (const auto s : staleness) c.layer_barriers.emplace_back(ps::BarrierSpec{s == 0 ? ps::BarrierKind::kBsp : ps::BarrierKind::kSsp, s});
      if (app.count("--barrier") == 0)
        c.barrier = ps::Barrier(ps::BarrierSpec{ps::BarrierKind::kSsp, *std::max_element(staleness.begin(), staleness.end())});
      layers = c.layer_barriers[0].name() + "," + c.layer_barriers[1].name();
      rules = c.barrier.name() + ", layers " + layers;
    }
    quiet = quiet || !job.reports();
    c.validate();
    {
      const OutputSpec outputs[] = {{"--out", out_path}, {"--metrics", metrics_path}};
      const std::filesystem::path inputs[] = {train_path, test_path, multi.token_file()};
      checkpoints.check_outputs_with(outputs, inputs, job.reports());
    }
    const auto set = mlp::read_dataset(train_path, classes);
    const auto test = test_path.empty() ? set : mlp::read_dataset(test_path, classes, set.features());
    if (job.reports())
      std::printf("gyre-mlp: %lld samples, %d features, %d classes, %d hidden; %s\n", static_cast<long long>(set.samples()),
                  set.features(), classes, c.hidden,
                  (sgd.describe(job, c) + (layers.empty() ? "" : ", reads per layer " + layers)).c_str());
    std::fflush(stdout);
    std::unique_ptr<report::MetricsLog> metrics;
    if (!metrics_path.empty() && job.reports()) metrics = std::make_unique<report::MetricsLog>(metrics_path);
    auto options = app::progress(metrics.get(), quiet, rules);
    app::use_checkpoints(checkpoints, app, {"--out", "--metrics", "--quiet"}, {"--train", "--test"}, job, c, options);
    std::optional<mlp::MlpRun> trained;
    if (job.cluster)
      trained = mlp::train_cluster(set, test, c, options, *job.cluster);
    else
      trained = mlp::train(set, test, c, options);
    if (!trained) return 0;  // not process 0
    const auto& run = trained->run;
    if (metrics)
      metrics->write({{"step", simulation::step_quantile(run.steps, 0.5)}, {"updates", run.updates}, {"seconds", run.seconds},
                      {"loss", run.fit.loss}, {"accuracy", run.fit.accuracy}, {"barrier", rules}, {"final", true}});
    app::print_worker_steps(run.steps, run.held_seconds, run.seconds);
    std::printf("final: loss %.6f, accuracy %.4f after %lld updates, %.3f s\n", run.fit.loss, run.fit.accuracy,
                static_cast<long long>(run.updates), run.seconds);
    if (!out_path.empty()) write_model(out_path, *trained);
    if (metrics) metrics->finish();
    return 0;
  });
}
