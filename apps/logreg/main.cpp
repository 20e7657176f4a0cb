// apps/logreg/main.cpp — gyre-logreg: logistic regression by data-parallel SGD on the parameter server (thin wrapper over gyre::logreg).
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <memory>
#include <optional>
#include <string>

#include "app/checkpoint_flags.hpp"
#include "app/cluster_flags.hpp"
#include "app/command_line.hpp"
#include "app/entry_point.hpp"
#include "app/job_settings.hpp"
#include "app/ps_sgd_flags.hpp"
#include "gyre/base/limits.hpp"
#include "gyre/base/output_check.hpp"
#include "gyre/base/output_file.hpp"
#include "gyre/cluster/launch.hpp"
#include "gyre/data/id_space.hpp"
#include "gyre/data/regression.hpp"
#include "gyre/report/metrics_log.hpp"
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
  CLI::App app{"gyre-logreg: logistic regression by data-parallel SGD on gyre's parameter server, under a barrier of\n"
               "your choice. Defaults run one process on all cores: gyre-logreg --data train.libsvm --out weights.tsv"};
  std::string data_path, test_path, out_path, metrics_path;
  logreg::LogregConfig c;
  app::PsSgdFlags sgd;
  bool quiet = false;
  app.add_option("--data", data_path, "training data: LibSVM (labels > 0 are class 1), CSV, MatrixMarket, or a rows directory")
      ->required();
  app.add_option("--test", test_path, "evaluate on this set instead of the training set");
  sgd.add_to(app, c);
  app.add_option("--l2", c.l2, "L2 penalty λ")->capture_default_str()->check(app::non_negative_number());
  app.add_option("--out,-o", out_path, "weights, tab-separated: feature (0 = bias), name, weight");
  app.add_option("--metrics", metrics_path, "JSON lines, one per evaluation: step, updates, seconds, loss, accuracy, barrier");
  app.add_flag("--quiet,-q", quiet, "no per-evaluation lines");
  app::CheckpointFlags checkpoints;
  checkpoints.add_to(app);
  app::ClusterFlags multi("gyre-logreg");
  multi.add_to(app);
  if (const auto exit_code = gyre::app::parse_command_line(app, argc, argv)) return *exit_code;
  // The only place gyre-logreg looks at the environment; the library gets explicit settings.
  const auto env = cluster::environment_of(environ);

  return app::run_entry_point("gyre-logreg", [&] {
    auto job = multi.job(env, sgd.workers(), c.seed);  // before the data: a bad job is refused at once
    sgd.apply(job, c);
    quiet = quiet || !job.reports();
    c.validate();
    {
      const OutputSpec outputs[] = {{"--out", out_path}, {"--metrics", metrics_path}};
      const std::filesystem::path inputs[] = {data_path, test_path, multi.token_file()};
      checkpoints.check_outputs_with(outputs, inputs, job.reports());
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
      std::printf("gyre-logreg: %llu samples, %u features; %s\n", static_cast<unsigned long long>(set.samples()),
                  set.features, sgd.describe(job, c).c_str());
    std::fflush(stdout);
    std::unique_ptr<report::MetricsLog> metrics;
    if (!metrics_path.empty() && job.reports()) metrics = std::make_unique<report::MetricsLog>(metrics_path);
    auto options = app::progress(metrics.get(), quiet, c.barrier.name());
    app::use_checkpoints(checkpoints, app, {"--out", "--metrics", "--quiet"}, {"--data", "--test"}, job, c, options);
    std::optional<logreg::LogregRun> trained;
    if (job.cluster)
      trained = logreg::train_cluster(set, eval, c, options, *job.cluster);
    else
      trained = logreg::train(set, eval, c, options);
    if (!trained) return 0;  // not process 0: the model is there
    const auto& run = *trained;
    app::print_worker_steps(run.steps, run.held_seconds, run.seconds);
    std::printf("final: loss %.6f, accuracy %.4f after %.3f s\n", run.fit.loss, run.fit.accuracy, run.seconds);
    if (!out_path.empty()) write_weights(out_path, set, columns, run.weights);
    if (metrics) metrics->finish();
    return 0;
  });
}
