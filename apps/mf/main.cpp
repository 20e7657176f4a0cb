// apps/mf/main.cpp — gyre-mf: SGD matrix factorisation from the command line (thin wrapper over gyre::mf).
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <functional>
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
#include "app/memory_budget.hpp"
#include "gyre/base/limits.hpp"
#include "gyre/base/output_check.hpp"
#include "gyre/cluster/launch.hpp"
#include "mf/rate_schedule.hpp"
#include "mf/split_input.hpp"
#include "gyre/data/manifest.hpp"
#include "gyre/data/ratings.hpp"
#include "gyre/report/metrics_log.hpp"
#include "gyre/report/progress.hpp"
#include "mf/checkpoint.hpp"
#include "mf/distributed.hpp"
#include "mf/input.hpp"
#include "mf/mf_kernel.hpp"
#include "mf/model_io.hpp"
#include "mf/trainer.hpp"
#include "mf/warm_start.hpp"
#include "use_commands.hpp"

namespace {

std::string format_report(const gyre::mf::EpochReport& r) {
  char line[200];
  std::snprintf(line, sizeof line, "epoch %3d  %8.2fs  train_rmse %.5f  test_rmse %s  held_out_rmse %s  %.3gM updates/s",
                r.epoch, r.seconds, r.train_rmse, r.test_rmse ? std::to_string(*r.test_rmse).c_str() : "-",
                r.held_out_rmse ? std::to_string(*r.held_out_rmse).c_str() : "-", r.updates_per_s / 1e6);
  return line;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace gyre;
  if (const auto exit_code = mf::run_use_command(argc, argv)) return *exit_code;
  CLI::App app{"gyre-mf: matrix factorisation by SGD or CCD++ with rotating item blocks.\n"
               "Defaults run one process on all cores: gyre-mf --train ratings.tsv\n"
               "Using a model: gyre-mf predict --help, gyre-mf recommend --help, gyre-mf export --help"};
  std::string train_path, test_path, out_dir, metrics_path, init_model;
  mf::MfConfig c;
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  int workers = 0, threads = 0;
  std::string ring = "fixed", local = "dynamic", model = "rotation", collective = "ring";
  std::string update = mf::name_of(c.update);
  bool quiet = false;

  app.add_option("--train", train_path, "training ratings: a ratings file, a directory of them (read as one, in name order) or a gyre-partition directory")->required();
  app.add_option("--test", test_path, "held-out ratings file; its RMSE is reported per epoch");
  app.add_option("--init-model", init_model,
                 "continue training a model written by --out (its rank, biases, seed, learning-rate schedule and "
                 "epochs done; --epochs more epochs)");
  app.add_option("--rank,-k", c.rank, "number of latent factors")->capture_default_str()->check(CLI::Range(1u, 4096u));
  app.add_option("--epochs,-e", c.epochs, "passes over the training data")
      ->capture_default_str()->check(CLI::Range(0, mf::kMaxEpochs));
  app.add_option("--workers,-p", workers, "rotation workers P (default: 1, or the partition's shard count)")
      ->check(CLI::Range(1, kMaxWorkers));
  app.add_option("--threads,-t", threads, "threads per worker T (default: all cores / P)")->check(CLI::Range(1, kMaxThreads));
  app.add_option("--depth,-d", c.depth, "pipeline depth d: item blocks in flight per worker")
      ->capture_default_str()->check(CLI::Range(1, kMaxDepth));
  app.add_option("--blocks-per-worker,-m", c.blocks_per_worker, "m: P·m item blocks (default: d)")
      ->check(CLI::Range(1, kMaxDepth));
  app.add_option("--seed", c.seed, "seed of the initial factors and the ring orders")->capture_default_str();
  app.add_option("--lambda", c.lambda, "L2 regularisation of the factors")->capture_default_str()->check(gyre::app::non_negative_number());
  app.add_option("--lambda-bias", c.lambda_bias, "L2 regularisation of the biases")
      ->capture_default_str()->check(gyre::app::non_negative_number());
  app.add_option("--update", update,
                 "adagrad (per-row adaptive rates, scaled by the ratings' spread), sgd (one rate for all rows) or "
                 "ccd (CCD++: one factor column at a time, solved exactly; no learning rate, no biases)")
      ->check(CLI::IsMember({"adagrad", "sgd", "ccd"}))->capture_default_str();
  app.add_option("--ccd-inner", c.ccd_inner, "ccd: passes over each factor column per epoch (LIBPMF's -T)")
      ->capture_default_str()->check(CLI::Range(1u, mf::kMaxCcdInner));
  app.add_option("--lr", c.learning_rate, "learning rate: AdaGrad's, scale-free (default 0.1); SGD's first epoch's (default 0.05)")
      ->check(gyre::app::positive_number());
  app.add_option("--lr-decay", c.lr_decay, "learning rate factor per epoch")
      ->capture_default_str()->check(gyre::app::positive_number());
  app.add_option("--lr-warmup", c.lr_warmup, "a fresh model's first epoch trains at this share of the rate")
      ->capture_default_str()->check(CLI::Range(0.0f, 1.0f))->check(gyre::app::positive_number());
  app.add_option("--lr-cut", c.lr_cut, "after an epoch whose held-out RMSE rose, the rate is multiplied by this (1: never)")
      ->capture_default_str()->check(CLI::Range(0.0f, 1.0f))->check(gyre::app::positive_number());
  app.add_option("--lr-grow", c.lr_grow,
                 "after an epoch that improved the held-out RMSE steadily, the rate is multiplied by this (1: never; at most 8 times in all)")
      ->capture_default_str()->check(CLI::Range(1.0f, gyre::mf::kMaxRateScale));
  app.add_option("--held-out", c.held_out,
                 "share of the training ratings held out from training to steer --lr-cut and reported as held_out_rmse (0: none)")
      ->capture_default_str()->check(CLI::Range(0.0f, 0.5f));
  app.add_option("--held-out-max", c.held_out_max, "at most this many ratings held out (0: no cap)")->capture_default_str();
  float init_scale = 0;
  app.add_option("--init-scale", init_scale, "initial factors uniform in [-s, s] (default: sqrt(ratings' std dev / rank))")
      ->check(gyre::app::non_negative_number());
  std::uint32_t first_epoch_columns = 0;
  app.add_option("--first-epoch-columns", first_epoch_columns,
                 "AdaGrad's first epoch updates only the first N factor columns, rounded up to a multiple of 8 "
                 "(default 0: all)");
  bool biases = false;
  app.add_flag("--biases,!--no-biases", biases,
               "model a global mean and user and item biases, or not (default: when the items' mean ratings differ "
               "by more than noise; never under --update ccd)");
  app.add_option("--ring", ring, "ring order per epoch")->check(CLI::IsMember({"fixed", "random"}))->capture_default_str();
  app.add_option("--local-schedule", local,
                 "deterministic (bitwise reproducible) or dynamic (FPSGD free-cell picking; not reproducible)")
      ->check(CLI::IsMember({"deterministic", "dynamic"}))->capture_default_str();
  app.add_option("--passes", c.passes, "passes over a block's grid per visit, each over a slice of every cell (0: auto)")
      ->capture_default_str()->check(CLI::Range(0u, mf::kMaxPasses));
  app.add_option("--eval-every", c.eval_every, "evaluate the test set every N epochs")
      ->capture_default_str()->check(CLI::Range(1, mf::kMaxEpochs));
  app.add_option("--model", model,
                 "Harp's computation model for the item factors: A|locking (lock service, shared copy), "
                 "B|rotation (ring), C|allreduce (replicas, mean change allreduced), D|nosync (replicas, async averaging)")
      ->capture_default_str();
  app.add_option("--collective", collective,
                 "allreduce model: how changes are summed: ring (allreduce), regroup (+allgather), pushpull")
      ->check(CLI::IsMember({"ring", "regroup", "pushpull"}))->capture_default_str();
  app.add_option("--average-ms", c.average_ms, "no-sync model: interval of the averaging thread, ms")
      ->capture_default_str()->check(CLI::Range(0.001, 3.6e6));
  app.add_option("--max-lead", c.max_lead,
                 "no-sync model: epochs a replica may run ahead of the slowest one (-1: unbounded)")
      ->capture_default_str()->check(CLI::Range(-1, 1000000));
  app.add_option("--out,-o", out_dir, "directory for model.json, user_factors.tsv, item_factors.tsv (across processes: every rank writes its part, *.part-R.tsv)");
  app.add_option("--metrics", metrics_path, "JSON lines, one per epoch: epoch, seconds, train_rmse, test_rmse, held_out_rmse, updates_per_s");
  app.add_flag("--quiet,-q", quiet, "no per-epoch lines on stdout");
  // Multi-process runs. The process rank is not --rank, which is the factor rank here.
  std::uint64_t max_memory = 0;
  app::add_max_memory_flag(app, max_memory);
  app::CheckpointFlags checkpoints;
  checkpoints.add_to(app);
  app::ClusterFlags multi("gyre-mf");
  multi.add_to(app);
  if (const auto exit_code = gyre::app::parse_command_line(app, argc, argv)) return *exit_code;
  // The only place gyre-mf looks at the environment; the library gets explicit settings.
  const auto env = cluster::environment_of(environ);

  return app::run_entry_point("gyre-mf", [&] {
    c.update = mf::parse_update_rule(update);
    if (c.update == mf::UpdateRule::kSgd && app.count("--lr") == 0) c.learning_rate = mf::kSgdRate;
    // CCD++ has no rate to steer: held-out ratings would only be left out of training.
    if (c.update == mf::UpdateRule::kCcd && app.count("--held-out") == 0) c.held_out = 0;
    if (app.count("--biases") > 0) c.biases = biases;
    if (app.count("--init-scale") > 0) c.init_scale = init_scale;
    c.first_epoch_columns = first_epoch_columns;
    // A warm start takes its settings from the saved model, so it is read before anything
    // depends on them (the rank in the memory check, the banner).
    const auto launch = multi.launch(env);
    const bool distributed = launch.size > 1;
    std::optional<mf::MfModel> saved;
    if (!init_model.empty()) {
      // Across processes a rank keeps no user rows yet: its own are read once its input says
      // which they are (below), so that no rank holds the whole model.
      saved = distributed ? mf::read_model(init_model, [](std::uint32_t) { return false; }) : mf::read_model(init_model);
      mf::continue_settings(c, *saved, init_model, [&](const char* flag) { return app.count(flag) > 0; });
    }
    c.model = mf::parse_computation_model(model);
    c.collective = mf::parse_change_collective(collective);
    if (checkpoints.writes() && c.model != mf::ComputationModel::kRotation && c.model != mf::ComputationModel::kAllreduce)
      throw std::invalid_argument("--checkpoint and --resume work with --model rotation and allreduce only: locking and "
                                  "no-sync depend on timing");
    if (distributed) {
      workers = app::ClusterFlags::workers_of(launch, workers);
      quiet = quiet || launch.rank != 0;  // rank 0 reports for the job
    }
    const std::vector<std::string> local_flags{"--out", "--metrics", "--quiet", "--threads", "--max-memory"};
    // How this process joins the job: the same for reading the input by ranges and for training.
    std::optional<rotation::ClusterJobOptions> cluster;
    if (distributed) {
      cluster = multi.job_options(launch, env, c.seed);
      cluster->settings = checkpoints.shared_settings(app, local_flags, {"--train", "--test", "--init-model"});
    }
    // Where the outputs go is checked before anything is read or trained: a run that cannot
    // deliver them fails now, not after hours.
    {
      const OutputSpec outputs[] = {{"--out", out_dir, &mf::model_directory()}, {"--metrics", metrics_path}};
      const std::filesystem::path inputs[] = {train_path, test_path, init_model, multi.token_file()};
      checkpoints.check_outputs_with(outputs, inputs, launch.rank == 0);
    }
    // Nothing else runs while the input is parsed, so it takes every core unless -t says otherwise.
    // A process of a job reads only its byte range of a file, or its own shard of a partition
    // that allows it.
    const auto parse_threads = static_cast<std::size_t>(threads > 0 ? threads : cores);
    mf::TrainingInput input;
    std::error_code ec;
    if (distributed && (std::filesystem::is_regular_file(train_path, ec) ||
                        (std::filesystem::is_directory(train_path, ec) && !data::is_partition_directory(train_path)))) {
      std::vector<data::SplitStats> reads;
      input = mf::load_split_input(train_path, test_path, parse_threads, *cluster, &reads);
      if (!quiet) multi.report_split_reads(reads, train_path);
    } else {
      input = mf::load_input(train_path, test_path, static_cast<std::uint32_t>(std::max(workers, 0)), parse_threads,
                             distributed ? std::optional(static_cast<std::uint32_t>(launch.rank)) : std::nullopt);
    }
    // Whether the model fits biases is decided from every item's rating sum (settle_biases),
    // which a rank that read only its part of the input lacks (every rank takes the same path).
    if (distributed && !c.biases && c.update != mf::UpdateRule::kCcd && input.stats.item_sums.empty())
      mf::gather_item_sums(input, *cluster);
    // This rank's users: those of its training shard, and of the test set, whose ratings go to
    // the rank of their user (and some users are only there). A continued or resumed job's
    // rank keeps only their rows of the saved model.
    std::vector<bool> mine;
    if (distributed && (saved || checkpoints.resumes())) {
      mine.assign(input.ids.users.size(), false);
      for (const auto& r : input.shards.at(static_cast<std::size_t>(launch.rank)).ratings) mine[r.user] = true;
      for (const auto& r : input.test.ratings) mine[r.user] = true;
    }
    const std::function<bool(std::uint32_t)> keep_dense_user =
        mine.empty() ? std::function<bool(std::uint32_t)>{} : [&mine](std::uint32_t dense) { return bool(mine[dense]); };
    if (saved && distributed) {
      const auto& originals = input.ids.users.original;  // ascending
      saved = mf::read_model(init_model, [&](std::uint32_t user) {
        const auto at = std::lower_bound(originals.begin(), originals.end(), user);
        return at != originals.end() && *at == user && mine[static_cast<std::size_t>(at - originals.begin())];
      });
      c.start = mf::dense_start(*saved, input.ids, init_model, keep_dense_user);
      saved.reset();
    } else if (saved) {
      c.start = mf::dense_start(*saved, input.ids, init_model);
      saved.reset();
    }
    c.workers = static_cast<int>(input.shards.size());
    // Whether the model has biases shapes its rows (a checkpoint's, the memory it needs), so
    // it is settled here, from the whole training set, as plan_job would.
    const bool biases_given = c.biases.has_value();
    const std::optional<double> item_f = mf::settle_biases(c, input.stats);
    // What a checkpoint records of this run, and a resume compares: the flags that shape the
    // result and the inputs' digests (read in full: only when checkpointing).
    std::optional<std::uint64_t> resumed_epoch;
    checkpoint::CheckpointTarget checkpoint_target;
    if (checkpoints.writes()) {
      checkpoint_target.settings = checkpoints.recorded_settings(app, local_flags, {"--train", "--test", "--init-model"});
      checkpoint_target.store = checkpoints.store();
      checkpoint_target.every = checkpoints.every();
    }
    if (checkpoints.resumes()) {
      const auto found = checkpoints.find(checkpoint_target.settings, c.workers, "gyre-mf");
      const auto resumed = mf::read_checkpoint(found, c, static_cast<std::uint32_t>(input.ids.users.size()),
                                               static_cast<std::uint32_t>(input.ids.items.size()), keep_dense_user);
      mf::continue_from(c, resumed, c.first_epoch + c.epochs);
      resumed_epoch = found.manifest.epoch;
      if (!quiet)
        std::printf("gyre-mf: resuming after epoch %d from %s\n", resumed.epoch, found.directory.string().c_str());
    }
    checkpoints.prepare(resumed_epoch, launch.rank == 0);
    // The factors are what a large rank or a large id space makes explode; the ratings are
    // already in memory by now.
    const std::uint64_t rows = std::uint64_t{input.ids.users.size()} + input.ids.items.size();
    app::require_memory(rows * mf::RowLayout::of(c).stride * sizeof(float), max_memory,
                        "a rank-" + std::to_string(c.rank) + " model of " + std::to_string(input.ids.users.size()) +
                            " users and " + std::to_string(input.ids.items.size()) + " items");
    c.threads = threads > 0 ? threads : std::max(1, distributed ? cores : cores / c.workers);
    c.ring = ring == "random" ? rotation::RingOrder::kRandom : rotation::RingOrder::kFixed;
    c.local = local == "dynamic" ? mf::LocalSchedule::kDynamic : mf::LocalSchedule::kDeterministic;
    if (!input.note.empty()) std::fprintf(stderr, "gyre-mf: %s\n", input.note.c_str());

    const std::uint64_t n = input.stats.total().count;  // of the whole set, also where only one shard was read
    if (!quiet) {
      std::printf("gyre-mf: %llu ratings, %llu test, rank %u, P=%d T=%d d=%d B=%d, %s model\n",
                  static_cast<unsigned long long>(n), static_cast<unsigned long long>(input.test.ratings.size()), c.rank,
                  c.workers, c.threads, c.depth, c.workers * c.group_size(), mf::name_of(c.model));
      if (!biases_given && !resumed_epoch && c.update != mf::UpdateRule::kCcd) {
        if (item_f)
          std::printf("gyre-mf: %s: the items' mean ratings vary %.3g times as much as noise would (F; biases from %g; "
                      "--biases or --no-biases to choose)\n",
                      *c.biases ? "biases" : "no biases", *item_f, mf::kItemOffsetsF);
        else
          std::printf("gyre-mf: no biases: the ratings do not show whether the items' means differ (--biases to fit them)\n");
      }
    }

    std::unique_ptr<report::MetricsLog> metrics;
    if (!metrics_path.empty() && launch.rank == 0) metrics = std::make_unique<report::MetricsLog>(metrics_path);
    report::Progress progress(stderr, !quiet && report::Progress::is_terminal(stderr));
    mf::TrainHooks hooks;
    hooks.checkpoints = checkpoint_target;
    hooks.on_epoch = [&](const mf::EpochReport& r) {
      if (metrics) {
        metrics->write({{"epoch", r.epoch},
                        {"seconds", r.seconds},
                        {"train_rmse", r.train_rmse},
                        {"test_rmse", r.test_rmse ? nlohmann::json(*r.test_rmse) : nlohmann::json(nullptr)},
                        {"held_out_rmse", r.held_out_rmse ? nlohmann::json(*r.held_out_rmse) : nlohmann::json(nullptr)},
                        {"updates_per_s", r.updates_per_s}});
      }
      if (!quiet) progress.print(format_report(r));
      progress.update(r.epoch - c.first_epoch, c.epochs, "training");
      checkpoints.kill_if_due(r.epoch);
    };
    progress.update(0, c.epochs, "training");
    std::optional<mf::MfModel> model;
    if (distributed) {
      cluster->settings.emplace_back("resumed after epoch", resumed_epoch ? std::to_string(*resumed_epoch) : "none");
      hooks.on_traffic = multi.traffic_reporter(launch);
      // Every rank writes its own part of the model; none gathers it (a model bigger than
      // one machine can be written, and read back in parts).
      if (!out_dir.empty()) hooks.parts = mf::PartsTarget{out_dir, &input.ids};
      hooks.discard_model = out_dir.empty();  // no rank gathers a model nobody writes
      model = mf::train_distributed(c, std::move(input.shards), input.stats, std::move(input.test), hooks, *cluster);
    } else {
      input.stats = {};  // planned again from the shards; what it holds per user would only add to the peak
      model = mf::train_embedded(c, std::move(input.shards), std::move(input.test), hooks);
    }
    progress.finish();
    if (model && !out_dir.empty()) {  // one process: the model as a whole
      model->restore_ids(input.ids);
      mf::write_model(out_dir, *model);
    }
    if (metrics) metrics->finish();
    return 0;
  });
}
