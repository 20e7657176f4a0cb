// apps/mf/mf/trainer.hpp — train MF by rotation in one process and collect the model.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "gyre/checkpoint/epoch_checkpoints.hpp"
#include "gyre/data/id_space.hpp"
#include "gyre/data/ratings.hpp"
#include "gyre/data/ratings_stats.hpp"
#include "gyre/rotation/rotation_job.hpp"
#include "mf/config.hpp"
#include "mf/item_blocks.hpp"
#include "mf/mf_kernel.hpp"
#include "mf/rate_schedule.hpp"

namespace gyre::mf {

struct EpochReport {
  int epoch = 0;                     // 1-based
  double seconds = 0;                // training time so far (evaluation phases excluded)
  double train_rmse = 0;             // over the epoch's updates, each error taken before its update
  std::optional<double> test_rmse;   // of the model after the epoch, when evaluated
  // Of the held-out training ratings (MfConfig::held_out), each taken after the visit that
  // trained its item block: the model as the epoch left it, as far as the schedule allows.
  std::optional<double> held_out_rmse;
  double updates_per_s = 0;          // this epoch's rating updates per second of training
};

// What --init-model needs to go on where a model stopped, recorded in its model.json: the
// epochs done in all and the settings of the learning-rate schedule and the start.
struct TrainingRecord {
  int epochs = 0;
  float learning_rate = 0;
  float lr_decay = 0;
  float lambda = 0;
  float lambda_bias = 0;
  std::uint64_t seed = 0;
  std::uint64_t phases = 0;  // the rotation's phases (training and evaluation) in all
  UpdateRule update = UpdateRule::kSgd;  // models before version 3 were trained by SGD
  float scale = 1;                       // the training ratings' standard deviation (AdaGrad's unit)
  RateState rate{};                      // after the last epoch; older models have none (a fresh state)
  float lr_cut = 1;                      // older models: none
  float held_out = 0;
  float lr_grow = 1;                     // older models: none
  std::uint32_t ccd_inner = 1;           // CCD++'s passes per column
  std::optional<std::uint64_t> held_out_max{};  // models before it was recorded: none (the run's own)
};

// Compact factors: row r of `user_factors` is user `user_ids[r]`, `rank` floats.
struct MfModel {
  std::uint32_t rank = 0;
  bool biases = false;
  float mean = 0;
  std::uint32_t users = 0;  // id space
  std::uint32_t items = 0;
  std::vector<std::uint32_t> user_ids;  // ascending
  std::vector<float> user_factors;
  std::vector<float> user_bias;
  std::vector<float> item_factors;  // every item of the id space, by id
  std::vector<float> item_bias;
  // AdaGrad's sums per row, kSumsPerRow floats (the factors', the bias's) in the order of the
  // factor rows; empty under SGD. Saved with the model so that training continues bitwise.
  static constexpr std::size_t kSumsPerRow = 2;
  std::vector<float> user_sums;
  std::vector<float> item_sums;
  // The ids written out: user_ids as they are, row r of the item factors as item_ids[r] (empty:
  // r itself). Training runs on dense ids; restore_ids puts the input's ids back.
  std::vector<std::uint32_t> item_ids;
  std::optional<TrainingRecord> trained;  // absent from models written before version 2

  float predict(std::uint32_t user_row, std::uint32_t item) const;
  // Translates user_ids and sets item_ids from the dense id space the model was trained in.
  void restore_ids(const data::IdTables& ids);
};

// What every rank computes the same way from the whole training set before training: id
// spaces, global mean, item blocking, grid size, the schedule, and the test split by worker.
struct MfPlan {
  MfConfig config;
  std::uint32_t users = 0;
  std::uint32_t items = 0;
  float mean = 0;
  float scale = 1;  // the training ratings' standard deviation
  bool has_test = false;
  ItemBlocks blocks;
  RowLayout layout{};
  std::uint32_t groups = 1;
  std::shared_ptr<const rotation::RotationSchedule> schedule;
  std::vector<data::RatingsSet> test_shards;  // by worker
  // The learning rate's state: the start model's (or a fresh one) when planned; then moved on
  // by the epoch policy, in the process that runs it, so that the model written records where
  // it ended. Kernels take a copy when made and the scale from each phase start.
  std::shared_ptr<RateState> rate;
};

// Items' mean ratings that vary at least this much more than noise would (the F statistic of
// data::item_means_f) make the model fit biases when MfConfig::biases is unset. Ratings
// without offsets measure 0.98-1.02, InstEval 11.9, the Netflix-shaped set 484.
inline constexpr double kItemOffsetsF = 2.0;
// Sets config.biases where it is unset: off under CCD++ or where the statistics cannot tell
// (no item sums, one rated item, no variation within items), else on when the items' means
// vary as kItemOffsetsF says. Returns the F statistic it went by, if any.
std::optional<double> settle_biases(MfConfig& config, const data::RatingsStats& train);

// From the statistics of the whole training set (read from a partition beside one shard, or
// computed from every shard) and the whole test set.
MfPlan plan_job(const MfConfig& config, const data::RatingsStats& train, const data::RatingsSet& test);
MfPlan plan_job(const MfConfig& config, const std::vector<data::RatingsSet>& train_shards, const data::RatingsSet& test);
// A worker's kernel, given its training shard and its test shard (plan.test_shards[worker]):
// both are laid out in place, so that the kernel holds the only copy of the ratings.
std::unique_ptr<MfKernel> make_kernel(const MfPlan& plan, data::RatingsSet train_shard, data::RatingsSet test_shard);
// The item blocks worker `worker` starts with, initialised from the seed or the saved model.
std::vector<model::Block> initial_blocks(const MfPlan& plan, int worker);
// The scheduler's epoch bookkeeping: train phases, evaluation phases when there is a test set,
// an EpochReport per epoch.
// Whether epoch `epoch` (counted over the model's life, from 1) ends with an evaluation of the
// test set: every --eval-every epochs, and the run's last. Counted over the model's life so that
// a resumed or continued run evaluates, and so moves its blocks, where an uninterrupted one does.
bool evaluates_after(const MfConfig& c, int epoch);
// The policy, and what it sends with each phase start: the learning rate's scale.
struct EpochControl {
  rotation::PhasePolicy policy;
  rotation::PhasePayload payload;
};
EpochControl epoch_control(const MfPlan& plan, std::function<void(const EpochReport&)> on_epoch);
// A model's fields without its rows: rank, biases, mean, id spaces, the training record.
MfModel model_header(const MfPlan& plan);
// The model from every worker's user rows and every block.
MfModel assemble_model(const MfPlan& plan, const std::vector<UserRows>& users,
                       const std::vector<const model::Block*>& blocks);

// Multi-process runs: where every rank writes its own part of the model (mf/model_io.hpp,
// version 4), with the id tables that turn dense ids back into the input's; no rank gathers it.
struct PartsTarget {
  std::filesystem::path directory;
  const data::IdTables* ids = nullptr;
};

struct TrainHooks {
  std::function<void(const EpochReport&)> on_epoch;
  // Multi-process runs: bytes this rank's worker put on the wire during the rotation.
  std::function<void(std::uint64_t)> on_traffic;
  rotation::EmbeddedJobOptions job;  // threads_per_worker is taken from the config
  checkpoint::CheckpointTarget checkpoints;  // rotation only (mf/checkpoint.hpp)
  std::optional<PartsTarget> parts;        // train_distributed only
  bool discard_model = false;              // train_distributed: the model is neither written nor gathered
};

// `train_shards` has one shard per worker (config.workers of them, split by user); test
// ratings go to the worker that holds their user. The shards and the test set are taken by
// value and laid out in place, so the input does not stay resident twice.
// Throws std::invalid_argument on a config that cannot run, runtime::JobFailed if the job fails.
MfModel train_embedded(const MfConfig& config, std::vector<data::RatingsSet> train_shards,
                       data::RatingsSet test, const TrainHooks& hooks = {});

// Splits `set` by user into `parts` shards (the same rule as gyre-partition).
std::vector<data::RatingsSet> shard_by_user(const data::RatingsSet& set, std::uint32_t parts);

}  // namespace gyre::mf
