// apps/lasso/main.cpp — gyre-lasso: Lasso and elastic net by scheduled coordinate descent from the command line (thin wrapper over gyre::lasso).
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <thread>

extern char** environ;

#include "app/checkpoint_flags.hpp"
#include "app/cluster_flags.hpp"
#include "app/command_line.hpp"
#include "app/entry_point.hpp"
#include "app/job_settings.hpp"
#include "gyre/base/limits.hpp"
#include "gyre/base/output_check.hpp"
#include "gyre/cluster/launch.hpp"
#include "gyre/data/binary_labels.hpp"
#include "gyre/data/id_space.hpp"
#include "gyre/data/regression.hpp"
#include "gyre/report/metrics_log.hpp"
#include "gyre/report/progress.hpp"
#include "gyre/rotation/rotation_job.hpp"
#include "lasso/column_models.hpp"
#include "lasso/model_io.hpp"
#include "lasso/rows_input.hpp"
#include "lasso/solver.hpp"

namespace {

std::string format_check(const gyre::lasso::CheckReport& r) {
  char line[200];
  std::snprintf(line, sizeof line,
                "lambda %.4g  round %7llu  %8.3fs  objective %.10g  gap %.2e  kkt %.2e  nnz %u  updates %llu",
                r.lambda, static_cast<unsigned long long>(r.round), r.seconds, r.certificate.objective,
                r.certificate.duality_gap, r.certificate.kkt_violation, r.nnz,
                static_cast<unsigned long long>(r.updates));
  return line;
}

gyre::data::RegressionFormat format_of(const std::string& name) {
  using gyre::data::RegressionFormat;
  if (name == "libsvm") return RegressionFormat::libsvm;
  if (name == "mtx") return RegressionFormat::matrix_market;
  if (name == "csv") return RegressionFormat::csv;
  return RegressionFormat::automatic;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace gyre;
  CLI::App app{"gyre-lasso: Lasso, elastic net and sparse logistic regression by STRADS-style scheduled coordinate "
               "descent over row shards.\n"
               "Defaults run one process on all cores: gyre-lasso --data data.libsvm --lambda 0.1 --out coef.tsv"};
  std::string data_path, format = "auto", response, response_column, out_path, metrics_path, schedule = "priority",
              loss = "squared", model = "rounds";
  std::optional<double> lambda;
  lasso::LassoConfig c;
  c.path_length = 0;
  std::optional<int> workers;
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  int threads = 0;
  bool no_intercept = false, quiet = false;

  app.add_option("--data", data_path,
                 "LibSVM file, MatrixMarket .mtx (response beside it or --response/--response-column), "
                 "CSV with a header (.csv), a gyre-partition rows directory, or a directory of LibSVM files")
      ->required();
  app.add_option("--format", format, "input format")->check(CLI::IsMember({"auto", "libsvm", "mtx", "csv"}))
      ->capture_default_str();
  app.add_option("--response", response, "MatrixMarket: file with the response, one number per line");
  app.add_option("--response-column", response_column, "MatrixMarket: 1-based column; CSV: column name or number");
  auto* lambda_opt =
      app.add_option("--lambda,-l", lambda, "the penalty λ (one solve, from β = 0)")->check(app::positive_number());
  app.add_option("--path", c.path_length, "solve N values of λ from λ_max down, warm-started (glmnet's path)")
      ->excludes(lambda_opt)->check(CLI::Range(1, 100000));
  app.add_option("--lambda-ratio", c.lambda_ratio, "smallest λ of the path over λ_max (default 1e-4 if n > p, else 1e-2)")
      ->check(app::non_negative_number());
  app.add_option("--loss", loss,
                 "squared: Lasso / elastic net; logistic: sparse logistic regression of two classes (LibSVM "
                 "±1, 0/1 or any two values; the larger is class 1)")
      ->check(CLI::IsMember({"squared", "logistic"}))->capture_default_str();
  app.add_option("--alpha", c.alpha, "L1 share of the penalty: 1 Lasso, (0,1) elastic net")
      ->capture_default_str()->check(app::positive_number());
  app.add_flag("--no-intercept", no_intercept, "fit without an intercept (no centring)");
  app.add_flag("--standardize", c.standardize, "scale columns to unit standard deviation for the fit (glmnet's default)");
  app.add_option("--model", model,
                 "how workers share the work: rounds (STRADS: row shards, a scheduler picks the coordinates), "
                 "C|allreduce (Harp: each worker sweeps its own columns, the residual's changes summed every round), "
                 "D|nosync (the same, changes pushed and added as they arrive); C and D: squared loss, "
                 "P = all cores by default, one thread each")
      ->capture_default_str()
      ->transform(app::one_spelling(lasso::parse_computation_model, lasso::name_of, "rounds|C|allreduce|D|nosync"));
  app.add_option("--schedule", schedule, "which coordinates each round updates")
      ->check(CLI::IsMember({"cyclic", "random", "priority"}))->capture_default_str();
  app.add_option("--batch,-u", c.batch, "U: coordinates proposed per round (default: features/16, 1..1024)")
      ->check(CLI::Range(0u, 1'000'000u));
  app.add_option("--rho", c.rho, "dependency check: drop candidates this correlated with kept or in-flight ones (>= 1: off)")
      ->capture_default_str()->check(app::non_negative_number());
  app.add_option("--depth,-d", c.depth, "rounds in flight (1: synchronous)")->capture_default_str()->check(CLI::Range(1, kMaxDepth));
  app.add_option("--eta", c.eta, "priority floor, relative to the largest step of the last check")
      ->capture_default_str()->check(app::non_negative_number());
  app.add_option("--warmup", c.warmup_sweeps, "priority schedule: uniform sweeps before sampling by priority")
      ->capture_default_str()->check(app::non_negative_number());
  bool no_cycles = false;
  app.add_flag("--no-cycles", no_cycles,
               "with one worker, schedule rounds of coordinates instead of running active-set cycles on the worker");
  app.add_option("--workers,-p", workers, "row-shard workers P (default: 1, or the number of processes)")
      ->check(CLI::Range(1, kMaxWorkers));
  app.add_option("--threads,-t", threads, "threads per worker T (default: all cores / P)")->check(CLI::Range(1, kMaxThreads));
  app.add_option("--seed", c.seed, "seed of the random and priority schedules")->capture_default_str();
  app.add_option("--tol", c.tol, "stop when the duality gap is at most tol × objective")
      ->capture_default_str()->check(app::positive_number());
  app.add_option("--check-every", c.check_every, "coordinate updates between exact checks (default: features)");
  app.add_option("--max-updates", c.max_updates, "coordinate updates per λ before giving up (default: 10000 sweeps)");
  app.add_option("--out,-o", out_path, "coefficients, tab-separated: lambda, feature, name, coefficient");
  app.add_option("--metrics", metrics_path,
                 "JSON lines, one per check: lambda, round, seconds, objective, nnz, kkt_violation, duality_gap, updates");
  app.add_flag("--quiet,-q", quiet, "no per-check lines on stdout");
  app::CheckpointFlags checkpoints;
  checkpoints.add_to(app);
  // A Lasso checkpoint's number ("epoch-N") counts checks, the lines the run prints.
  app.get_option("--checkpoint")
      ->description("write a checkpoint into DIR/epoch-N after every --checkpoint-every checks (N: the checks "
                    "reported so far)");
  app.get_option("--checkpoint-every")->description("checks between checkpoints");
  app.get_option("--resume")
      ->description("continue the run whose checkpoints are in DIR from its newest sound one (same flags and data); "
                    "it goes on writing checkpoints there unless --checkpoint says otherwise");
  app::ClusterFlags multi("gyre-lasso");
  multi.add_to(app);
  if (const auto exit_code = gyre::app::parse_command_line(app, argc, argv)) return *exit_code;
  // The only place gyre-lasso looks at the environment; the library gets explicit settings.
  const auto env = cluster::environment_of(environ);

  return app::run_entry_point("gyre-lasso", [&] {
    c.model = lasso::parse_computation_model(model);  // already checked by --model's validator
    const bool by_columns = c.model != lasso::ComputationModel::kRounds;
    if (by_columns && checkpoints.writes())
      throw std::invalid_argument("--checkpoint and --resume work with --model rounds only");
    // A column model's workers sweep on one thread each, so one process takes a worker per core.
    if (by_columns && !workers && multi.launch(env).size <= 1) workers = cores;
    auto job = multi.job(env, workers, c.seed);  // before the data: a bad job is refused at once
    const std::vector<std::string> local_flags{"--out", "--metrics", "--quiet", "--threads"};
    if (job.cluster) {
      job.cluster->settings = checkpoints.shared_settings(app, local_flags, {"--data", "--response"});
    }
    const auto& cluster = job.cluster;
    const bool distributed = cluster.has_value();
    c.workers = job.workers;
    quiet = quiet || !job.reports();
    if (lambda) c.lambdas = {*lambda};
    else if (c.path_length <= 0) throw std::invalid_argument("give --lambda L or --path N");
    c.intercept = !no_intercept;
    c.loss = lasso::parse_loss(loss);
    c.cycles = !no_cycles;
    c.schedule = lasso::parse_schedule(schedule);
    // A rank of a multi-process job is taken to have its host's cores to itself, as in gyre-mf.
    c.threads = by_columns ? 1 : threads > 0 ? threads : std::max(1, distributed ? cores : cores / c.workers);
    c.validate();
    {
      const OutputSpec outputs[] = {{"--out", out_path}, {"--metrics", metrics_path}};
      const std::filesystem::path inputs[] = {data_path, response, multi.token_file()};
      checkpoints.check_outputs_with(outputs, inputs, job.reports());
    }
    // What a checkpoint records of this run and a resume compares: the flags that shape the
    // result and the inputs' digests.
    lasso::SolveOptions options;
    std::optional<std::uint64_t> resumed_check;
    if (checkpoints.writes()) {
      auto settings = checkpoints.recorded_settings(app, local_flags, {"--data", "--response"});
      options.checkpoints.target = {checkpoints.store(), checkpoints.every(), std::move(settings)};
    }
    if (checkpoints.resumes()) {
      options.checkpoints.resume =
          checkpoints.find(options.checkpoints.target.settings, c.workers + 1, "gyre-lasso",
                           "a part per worker and the scheduler's: the rows' shards and the order of the sums depend "
                           "on the workers, resume with as many");
      resumed_check = options.checkpoints.resume->manifest.epoch;
      if (!quiet)
        std::printf("gyre-lasso: resuming after check %llu from %s\n", static_cast<unsigned long long>(*resumed_check),
                    options.checkpoints.resume->directory.string().c_str());
    }
    if (job.reports()) checkpoints.prepare(resumed_check);
    if (job.cluster)
      job.cluster->settings.emplace_back("resumed after check", resumed_check ? std::to_string(*resumed_check) : "none");
    data::RegressionOptions opts;
    opts.format = format_of(format);
    opts.response = response;
    opts.response_column = response_column;
    if (c.loss == lasso::Loss::logistic) opts.labels = data::LabelKind::two_classes;
    // Nothing else runs while the input is parsed, so it takes every core unless -t says otherwise.
    opts.threads = static_cast<std::size_t>(threads > 0 ? threads : cores);
    // Across processes each rank holds its shard of the rows and no other (a LibSVM file is
    // read by byte ranges); the scheduler on rank 0 works from the shards' column statistics.
    lasso::RowsInput rows;  // across processes
    data::RegressionSet whole;  // in one process
    if (cluster && !by_columns) {
      std::vector<data::SplitStats> reads;
      rows = lasso::load_rows_across(data_path, opts, c, *cluster, &reads);
      if (!quiet && !reads.empty()) multi.report_split_reads(reads, data::regression_source(data_path, opts).path);
      if (!quiet)
        for (std::size_t r = 0; r < rows.holdings.size(); ++r)
          std::fprintf(stderr, "gyre-lasso: rank %zu holds %llu rows, its shard; %llu of them came from other ranks\n", r,
                      static_cast<unsigned long long>(rows.holdings[r].rows),
                      static_cast<unsigned long long>(rows.holdings[r].received));
    } else {
      whole = data::load_regression(data_path, opts);
      rows.prepared = lasso::prepare_rows(whole, c.loss);
      rows.samples = whole.samples();
      rows.nnz = whole.nnz();
    }
    // Rank 0's rows carry the feature names (of a CSV or a partition) for the output.
    // (Column models: every rank reads the whole set, as a worker's columns span every row.)
    const data::RegressionSet& own = cluster && !by_columns ? rows.shard : whole;
    const std::optional<data::TwoClasses>& classes = rows.prepared.classes;
    const data::IdTable& columns = rows.prepared.columns;
    if (!quiet && by_columns)
      std::printf("gyre-lasso: %llu samples, %u features, %llu non-zeros; %s model, P=%d workers owning columns\n",
                  static_cast<unsigned long long>(rows.samples), own.features,
                  static_cast<unsigned long long>(rows.nnz), model.c_str(), c.workers);
    else if (!quiet)
      std::printf("gyre-lasso: %llu samples, %u features, %llu non-zeros; %s schedule, P=%d T=%d depth %d\n",
                  static_cast<unsigned long long>(rows.samples), own.features,
                  static_cast<unsigned long long>(rows.nnz), schedule.c_str(), c.workers, c.threads, c.depth);
    if (!quiet && classes)
      std::printf("gyre-lasso: logistic loss, class 1 is label %g, class 0 label %g: the coefficients give "
                  "log P(%g)/P(%g)\n",
                  classes->one, classes->zero, classes->one, classes->zero);

    std::unique_ptr<report::MetricsLog> metrics;
    if (!metrics_path.empty() && job.reports()) metrics = std::make_unique<report::MetricsLog>(metrics_path);
    report::Progress progress(stderr, !quiet && report::Progress::is_terminal(stderr));
    options.on_check = [&](const lasso::CheckReport& r) {
      if (metrics)
        metrics->write({{"lambda_index", r.lambda_index},
                        {"lambda", r.lambda},
                        {"round", r.round},
                        {"seconds", r.seconds},
                        {"objective", r.certificate.objective},
                        {"duality_gap", r.certificate.duality_gap},
                        {"kkt_violation", r.certificate.kkt_violation},
                        {"nnz", r.nnz},
                        {"updates", r.updates},
                        {"batch", r.batch},
                        {"depth", r.depth}});
      if (!quiet) progress.print(format_check(r));
      progress.update(r.lambda_index, static_cast<double>(std::max<std::size_t>(c.lambdas.size(), 1)), "solving");
      checkpoints.kill_if_due(static_cast<int>(r.check));
    };
    std::optional<lasso::LassoRun> solved;
    if (cluster && by_columns) {
      options.on_traffic = multi.traffic_reporter(job.launch);
      solved = lasso::solve_by_columns(lasso::column_job(c.workers, rotation::processes_backend(*cluster)), whole, c, options);
    } else if (cluster) {
      options.on_traffic = multi.traffic_reporter(job.launch);
      const lasso::HeldRows held{[&](int) -> const data::RegressionSet& { return rows.shard; },
                                 rows.y_offset, rows.samples, job.launch.rank == 0 ? &rows.stats : nullptr};
      solved = lasso::solve_held(lasso::lasso_job(c.workers, rotation::processes_backend(*cluster)), held, c, options);
    } else {
      solved = lasso::solve_embedded(whole, c, options);
    }
    progress.finish();
    if (!solved) return 0;  // not rank 0: the scheduler there holds the coefficients
    const lasso::LassoRun& run = *solved;
    if (!quiet) {
      std::printf("lambda_max %.6g\n", run.lambda_max);
      for (const auto& s : run.path)
        std::printf("lambda %.6g: objective %.12g, gap %.3g, kkt %.3g, nnz %zu, %llu updates, %.3fs%s\n", s.lambda,
                    s.certificate.objective, s.certificate.duality_gap, s.certificate.kkt_violation,
                    static_cast<std::size_t>(std::count_if(s.beta.begin(), s.beta.end(), [](double b) { return b != 0; })),
                    static_cast<unsigned long long>(s.updates), s.seconds, s.converged ? "" : " (not converged)");
    }
    if (!out_path.empty()) lasso::write_coefficients(out_path, run, own.feature_names, columns);
    if (metrics) metrics->finish();
    for (const auto& s : run.path)
      if (!s.converged) return 3;
    return 0;
  });
}
