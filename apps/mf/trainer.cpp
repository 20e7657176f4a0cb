// apps/mf/trainer.cpp — wires MF kernels, the rotation schedule and the epoch policy together.
#include "mf/trainer.hpp"

#include <algorithm>
#include <cmath>
#include <memory>
#include <stdexcept>

#include "gyre/base/limits.hpp"
#include "gyre/data/partition.hpp"
#include "mf/checkpoint.hpp"
#include "mf/item_blocks.hpp"
#include "mf/mf_kernel.hpp"
#include "mf/shared_models.hpp"
#include "mf/warm_start.hpp"

namespace gyre::mf {
namespace {

void validate(const MfConfig& c, std::size_t shards) {
  auto need = [](bool ok, const std::string& what) {
    if (!ok) throw std::invalid_argument(what);
  };
  const auto finite = [](double v) { return std::isfinite(v); };
  need(c.rank >= 1 && c.rank <= 4096, "rank must be in 1..4096");
  need(c.workers >= 1 && c.workers <= kMaxWorkers && c.threads >= 1 && c.threads <= kMaxThreads && c.depth >= 1 &&
           c.depth <= kMaxDepth && c.blocks_per_worker >= 0 && c.blocks_per_worker <= kMaxDepth,
       "workers must be in 1.." + std::to_string(kMaxWorkers) + ", threads in 1.." + std::to_string(kMaxThreads) +
           ", depth and blocks per worker in 1.." + std::to_string(kMaxDepth));
  need(c.epochs >= 0 && c.epochs <= kMaxEpochs && c.eval_every >= 1,
       "epochs must be in 0.." + std::to_string(kMaxEpochs) + " and eval-every >= 1");
  need(c.passes <= kMaxPasses, "passes must be in 0.." + std::to_string(kMaxPasses));
  const float init_scale = c.init_scale.value_or(0.0f);
  need(finite(c.learning_rate) && finite(c.lr_decay) && finite(c.lambda) && finite(c.lambda_bias) &&
           finite(init_scale) && finite(c.average_ms),
       "learning rate, decay, regularisation, init scale and averaging interval must be finite numbers");
  need(c.learning_rate > 0 && c.lr_decay > 0 && c.lambda >= 0 && c.lambda_bias >= 0 && init_scale >= 0,
       "learning rate and decay must be positive, regularisation and init scale non-negative");
  need(c.lr_warmup > 0 && c.lr_warmup <= 1 && c.lr_cut > 0 && c.lr_cut <= 1,
       "the warm-up's share of the rate (--lr-warmup) and the cut (--lr-cut) must be in (0, 1]");
  need(c.lr_grow >= 1 && c.lr_grow <= kMaxRateScale, "the growth (--lr-grow) must be in [1, 8]");
  need(c.held_out >= 0 && c.held_out <= 0.5f, "the held-out share (--held-out) must be in [0, 0.5]");
  need(c.average_ms >= 1 && c.average_ms <= 3.6e6 && c.average_ms == std::round(c.average_ms),
       "the averaging interval (--average-ms) must be a whole number of milliseconds in [1, 3600000]");
  need(c.max_lead >= -1, "the no-sync lead (--max-lead) must be -1 (unbounded) or a number of epochs >= 0");
  need(static_cast<int>(shards) == c.workers, "one training shard per worker");
  need(c.first_epoch_columns == 0 || c.update == UpdateRule::kAdaGrad,
       "--first-epoch-columns is AdaGrad's (--update adagrad): the other updates keep no sums to average");
  if (c.update == UpdateRule::kCcd) {
    need(c.ccd_inner >= 1 && c.ccd_inner <= kMaxCcdInner, "CCD++'s inner passes (--ccd-inner) must be in 1.." + std::to_string(kMaxCcdInner));
    need(!c.biases.value_or(false), "--update ccd fits factors only: it takes no --biases");
    need(c.model == ComputationModel::kRotation, "--update ccd runs on the rotation (--model B) only");
  }
}

// The scheduler-side epoch bookkeeping: which phase comes next and what to report.
class EpochPolicy {
 public:
  EpochPolicy(const MfConfig& c, bool has_test, std::shared_ptr<RateState> rate,
              std::function<void(const EpochReport&)> on_epoch)
      : config_(c), has_test_(has_test), rate_(std::move(rate)), on_epoch_(std::move(on_epoch)) {}

  std::optional<rotation::PhaseKind> operator()(const rotation::PhaseResult* last) {
    using rotation::PhaseKind;
    if (last == nullptr) return next();
    const auto s = last->report<MfReport>();
    if (last->kind == PhaseKind::kTrain) {
      seconds_ += last->seconds;
      epoch_seconds_ += last->seconds;
      // CCD++'s epoch is several phases; its last one reports for the epoch (MfKernel).
      if (++sub_phases_ < config_.train_phases_per_epoch()) return PhaseKind::kTrain;
      sub_phases_ = 0;
      ++done_;
      report_ = EpochReport{};
      report_.epoch = config_.first_epoch + done_;
      report_.seconds = seconds_;
      report_.train_rmse = s.train_count > 0 ? std::sqrt(s.train_loss / s.train_count) : 0.0;
      require_finite("train", report_.train_rmse);
      report_.updates_per_s = epoch_seconds_ > 0 ? s.train_count / epoch_seconds_ : 0.0;
      epoch_seconds_ = 0;
      if (s.held_out_count > 0) {
        report_.held_out_rmse = std::sqrt(s.held_out_loss / s.held_out_count);
        require_finite("held-out", *report_.held_out_rmse);
        *rate_ = next_rate_state(config_, *rate_, *report_.held_out_rmse, report_.train_rmse);
      }
      if (has_test_ && evaluates_after(config_, config_.first_epoch + done_)) return PhaseKind::kEvaluate;
    } else {
      report_.test_rmse = s.test_count > 0 ? std::sqrt(s.test_loss / s.test_count) : 0.0;
      require_finite("test", *report_.test_rmse);
    }
    if (on_epoch_) on_epoch_(report_);
    return next();
  }

 private:
  // A non-finite error means some factors are no longer numbers: stop before a model of NaNs
  // is written (the driver turns this into a failure of the whole job).
  void require_finite(const char* which, double rmse) const {
    if (!std::isfinite(rmse))
      throw std::runtime_error("training diverged: the " + std::string(which) + " RMSE of epoch " +
                               std::to_string(config_.first_epoch + done_) + " is " + std::to_string(rmse) +
                               " (a smaller learning rate or initial scale may help); no model is written");
  }

  std::optional<rotation::PhaseKind> next() const {
    if (done_ < config_.epochs) return rotation::PhaseKind::kTrain;
    return std::nullopt;
  }

  MfConfig config_;
  bool has_test_;
  std::shared_ptr<RateState> rate_;
  std::function<void(const EpochReport&)> on_epoch_;
  int done_ = 0;
  std::uint64_t sub_phases_ = 0;  // training phases of the epoch under way
  double seconds_ = 0;
  double epoch_seconds_ = 0;
  EpochReport report_;
};

// The phases EpochPolicy asks for: an epoch's training phases and the evaluations it adds.
std::uint64_t phases_of(const MfConfig& c, bool has_test) {
  std::uint64_t phases = static_cast<std::uint64_t>(c.epochs) * c.train_phases_per_epoch();
  for (int e = c.first_epoch + 1; has_test && e <= c.first_epoch + c.epochs; ++e) phases += evaluates_after(c, e) ? 1 : 0;
  return phases;
}

// The unit the updates take the ratings in: their standard deviation, but at least a quarter of
// their root mean square. Without biases the factors fit the ratings themselves, so ratings
// that barely vary (implicit feedback's 1s, a single rating) would be targets of thousands of
// units, and AdaGrad's steps would explode; real ratings (1-5 stars, Netflix-shaped data) vary
// by more than that quarter and keep their standard deviation. All zeros: unit 1.
float rating_scale(double sum, double sum_squares, std::uint64_t count) {
  if (count == 0 || !(sum_squares > 0)) return 1.0f;
  const double n = static_cast<double>(count), mean = sum / n;
  const double sigma = std::sqrt(std::max(0.0, sum_squares / n - mean * mean));
  return static_cast<float>(std::max(sigma, std::sqrt(sum_squares / n) / 4));
}

}  // namespace

bool evaluates_after(const MfConfig& c, int epoch) {
  return epoch % c.eval_every == 0 || epoch == c.first_epoch + c.epochs;
}

float MfModel::predict(std::uint32_t user_row, std::uint32_t item) const {
  float p = 0;
  for (std::uint32_t j = 0; j < rank; ++j)
    p += user_factors[std::size_t{user_row} * rank + j] * item_factors[std::size_t{item} * rank + j];
  if (biases) p += mean + user_bias[user_row] + item_bias[item];
  return p;
}

void MfModel::restore_ids(const data::IdTables& ids) {
  for (std::uint32_t& u : user_ids) u = ids.users.original.at(u);
  item_ids = ids.items.original;
  if (item_ids.size() != items) throw std::invalid_argument("restore_ids: the id table does not match the model's items");
}

std::vector<data::RatingsSet> shard_by_user(const data::RatingsSet& set, std::uint32_t parts) {
  return data::split_by_user(set, data::partition_users(set, parts));
}

MfPlan plan_job(const MfConfig& config, const std::vector<data::RatingsSet>& train_shards,
                const data::RatingsSet& test) {
  return plan_job(config, data::ratings_stats(train_shards, test.users, test.items), test);
}

std::optional<double> settle_biases(MfConfig& config, const data::RatingsStats& train) {
  if (config.biases) return std::nullopt;
  const std::optional<double> f = data::item_means_f(train);
  config.biases = config.update != UpdateRule::kCcd && f && *f >= kItemOffsetsF;
  return f;
}

MfPlan plan_job(const MfConfig& config, const data::RatingsStats& train, const data::RatingsSet& test) {
  validate(config, train.parts.size());
  const auto P = static_cast<std::uint32_t>(config.workers);
  MfPlan plan;
  plan.config = config;
  settle_biases(plan.config, train);
  plan.users = std::max(train.users, test.users);
  plan.items = std::max(train.items, test.items);

  // Test ratings follow their user's training shard; users seen only in the test go by id.
  std::vector<std::uint32_t> worker_of(plan.users, 0);
  for (std::uint32_t u = 0; u < plan.users; ++u)
    worker_of[u] = u < train.users && train.user_part[u] != data::kNoPart ? train.user_part[u] : u % P;
  plan.test_shards.resize(P);
  for (auto& t : plan.test_shards) {
    t.users = plan.users;
    t.items = plan.items;
  }
  for (const auto& r : test.ratings) plan.test_shards[worker_of[r.user]].ratings.push_back(r);
  const data::RatingsMoments moments = train.total();
  const double sum = moments.sum, sum_squares = moments.sum_squares;
  const std::uint64_t count = moments.count;
  plan.has_test = !test.ratings.empty();
  plan.mean = *plan.config.biases && count > 0 ? static_cast<float>(sum / static_cast<double>(count)) : 0.0f;
  plan.scale = rating_scale(sum, sum_squares, count);
  if (config.start) {  // part of the model being continued
    plan.mean = config.start->mean;
    if (config.start->trained) plan.scale = config.start->trained->scale;
  }
  plan.rate = std::make_shared<RateState>(initial_rate_state(config));
  // Every process holds out the same ratings: the share is fixed here, from the total.
  if (config.held_out_max > 0 && count > 0)
    plan.config.held_out = std::min(config.held_out, static_cast<float>(static_cast<double>(config.held_out_max) /
                                                                        static_cast<double>(count)));
  if (!plan.config.init_scale) plan.config.init_scale = std::sqrt(plan.scale / static_cast<float>(config.rank));

  plan.schedule = std::make_shared<rotation::RotationSchedule>(config.workers, config.group_size(), config.ring,
                                                                config.seed, config.first_phase);
  std::vector<std::uint64_t> item_ratings = train.item_ratings;
  item_ratings.resize(plan.items, 0);
  plan.blocks = ItemBlocks::balance(item_ratings,
                                    static_cast<std::uint32_t>(plan.schedule->blocks()));
  plan.layout = RowLayout::of(plan.config);
  std::size_t max_rows = 0;
  for (const auto& b : plan.blocks.rows) max_rows = std::max(max_rows, b.size());
  // Beyond the cache's choice where a block has too many rows for a cell's 16-bit item rows.
  plan.groups = std::max(rotation::choose_groups(config.threads, max_rows, plan.layout.stride * sizeof(float)),
                         min_groups(plan.blocks));
  return plan;
}

std::unique_ptr<MfKernel> make_kernel(const MfPlan& plan, data::RatingsSet train_shard, data::RatingsSet test_shard) {
  return std::make_unique<MfKernel>(plan.config, std::move(train_shard), std::move(test_shard), plan.blocks, plan.mean,
                                    plan.scale, plan.groups);
}

std::vector<model::Block> initial_blocks(const MfPlan& plan, int worker) {
  std::vector<model::Block> out;
  for (model::BlockId id : plan.schedule->held_at_start(worker, 0)) {
    const auto& items = plan.blocks.rows[id];
    model::Block block(id, items.size(), plan.layout.stride);
    for (std::size_t row = 0; row < items.size(); ++row)
      start_row(plan.config, Side::kItem, items[row], block.row(row), plan.layout.width);
    out.push_back(std::move(block));
  }
  return out;
}

EpochControl epoch_control(const MfPlan& plan, std::function<void(const EpochReport&)> on_epoch) {
  EpochControl out;
  out.policy = EpochPolicy(plan.config, plan.has_test, plan.rate, std::move(on_epoch));
  out.payload = [rate = plan.rate](std::uint64_t, rotation::PhaseKind) { return encode_rate_scale(rate->scale); };
  return out;
}

MfModel model_header(const MfPlan& plan) {
  const MfConfig& config = plan.config;
  MfModel model;
  model.rank = config.rank;
  model.biases = *config.biases;
  model.mean = plan.mean;
  model.users = plan.users;
  model.items = plan.items;
  model.trained = TrainingRecord{config.first_epoch + config.epochs,
                                 config.learning_rate,
                                 config.lr_decay,
                                 config.lambda,
                                 config.lambda_bias,
                                 config.seed,
                                 config.first_phase + phases_of(config, plan.has_test),
                                 config.update,
                                 plan.scale,
                                 *plan.rate,
                                 config.lr_cut,
                                 config.held_out,
                                 config.lr_grow,
                                 config.ccd_inner,
                                 config.held_out_max};
  return model;
}

namespace {

// Appends a row's factors, bias and sums to one side of `model`, from `row` whose tail (bias,
// sums) starts at `tail`.
void reserve_rows(MfModel& model, bool user, std::size_t rows) {
  (user ? model.user_ids : model.item_ids).reserve(rows);
  (user ? model.user_factors : model.item_factors).reserve(rows * model.rank);
  if (model.biases) (user ? model.user_bias : model.item_bias).reserve(rows);
  if (model.trained && model.trained->update == UpdateRule::kAdaGrad)
    (user ? model.user_sums : model.item_sums).reserve(rows * MfModel::kSumsPerRow);
}

void append_model_row(MfModel& model, bool user, const float* row, std::size_t tail) {
  static_assert(kBiasSumAt == kFactorSumAt + 1 && MfModel::kSumsPerRow == 2, "the sums lie side by side in a row's tail");
  auto& factors = user ? model.user_factors : model.item_factors;
  factors.insert(factors.end(), row, row + model.rank);
  if (model.biases) (user ? model.user_bias : model.item_bias).push_back(row[tail + kBiasAt]);
  if (model.trained && model.trained->update == UpdateRule::kAdaGrad) {
    auto& sums = user ? model.user_sums : model.item_sums;
    sums.insert(sums.end(), row + tail + kFactorSumAt, row + tail + kFactorSumAt + MfModel::kSumsPerRow);
  }
}

// The rows of `users` and `blocks` as a model, ids ascending, item_ids set (dense ids).
MfModel assemble_part(const MfPlan& plan, const std::vector<UserRows>& users, const std::vector<const model::Block*>& blocks) {
  MfModel model = model_header(plan);
  // Items in id order, whichever block holds them; then users likewise (their rows are model
  // rows, UserRows, with the tail right after the factors).
  std::vector<std::pair<std::uint32_t, const float*>> rows;
  for (const model::Block* b : blocks)
    for (std::size_t row = 0; row < b->rows(); ++row) rows.emplace_back(plan.blocks.rows[b->id()][row], b->row(row));
  std::sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  reserve_rows(model, false, rows.size());
  for (const auto& [id, row] : rows) {
    model.item_ids.push_back(id);
    append_model_row(model, false, row, plan.layout.width);
  }
  rows.clear();
  const std::size_t floats = model_row_floats(plan.config);
  for (const auto& part : users)
    for (std::size_t r = 0; r < part.ids.size(); ++r) rows.emplace_back(part.ids[r], part.rows.data() + r * floats);
  std::sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  reserve_rows(model, true, rows.size());
  for (const auto& [id, row] : rows) {
    model.user_ids.push_back(id);
    append_model_row(model, true, row, plan.config.rank);
  }
  return model;
}

}  // namespace

MfModel assemble_model(const MfPlan& plan, const std::vector<UserRows>& users, const std::vector<const model::Block*>& blocks) {
  MfModel part = assemble_part(plan, users, blocks);
  if (part.item_ids.size() == plan.items) {  // every item, in id order: by id as they are
    part.item_ids.clear();
    return part;
  }
  // Items no block holds keep zero rows, by id.
  MfModel model = std::move(part);
  const auto spread = [&](std::vector<float>& values, std::size_t width) {
    if (values.empty()) return;
    std::vector<float> dense(std::size_t{plan.items} * width, 0.0f);
    for (std::size_t r = 0; r < model.item_ids.size(); ++r)
      std::copy_n(values.begin() + std::ptrdiff_t(r * width), width, dense.begin() + std::ptrdiff_t{model.item_ids[r]} * std::ptrdiff_t(width));
    values = std::move(dense);
  };
  spread(model.item_factors, model.rank);
  spread(model.item_bias, 1);
  spread(model.item_sums, MfModel::kSumsPerRow);
  if (model.item_factors.empty()) model.item_factors.assign(std::size_t{plan.items} * model.rank, 0.0f);
  if (model.biases && model.item_bias.empty()) model.item_bias.assign(plan.items, 0.0f);
  if (model.trained && model.trained->update == UpdateRule::kAdaGrad && model.item_sums.empty())
    model.item_sums.assign(std::size_t{plan.items} * MfModel::kSumsPerRow, 0.0f);
  model.item_ids.clear();
  return model;
}

MfModel train_embedded(const MfConfig& config, std::vector<data::RatingsSet> train_shards,
                       data::RatingsSet test, const TrainHooks& hooks) {
  if (config.model != ComputationModel::kRotation) {
    const data::RatingsStats train = data::ratings_stats(train_shards, test.users, test.items);
    return *train_shared_models(config, std::move(train_shards), train, std::move(test), hooks, runtime::ThreadsBackend{},
                                hooks.job.timeout);
  }
  MfPlan plan = plan_job(config, train_shards, test);
  test = {};  // split into the plan's test shards
  std::vector<std::unique_ptr<MfKernel>> kernels;
  std::vector<rotation::EmbeddedWorker> workers(static_cast<std::size_t>(config.workers));
  for (int w = 0; w < config.workers; ++w) {
    const auto at = static_cast<std::size_t>(w);
    kernels.push_back(make_kernel(plan, std::move(train_shards[at]), std::move(plan.test_shards[at])));
    workers[static_cast<std::size_t>(w)].kernel = kernels.back().get();
    workers[static_cast<std::size_t>(w)].initial_blocks = initial_blocks(plan, w);
  }
  rotation::EmbeddedJobOptions job = hooks.job;
  job.threads_per_worker = config.threads;
  job.depth = config.depth;
  EpochControl control = epoch_control(plan, hooks.on_epoch);
  auto& policy = control.policy;
  job.phase_payload = std::move(control.payload);
  take_checkpoints(plan, hooks.checkpoints, policy, job,
                   [&](int w) -> const MfKernel& { return *kernels[static_cast<std::size_t>(w)]; });
  auto held = rotation::run_embedded(*plan.schedule, std::move(workers), policy, job);

  std::vector<UserRows> users;
  for (auto& k : kernels) {  // one worker's state at a time, so that the model is not held twice
    k->drop_ratings();
    users.push_back(k->user_rows());
    k.reset();
  }
  std::vector<const model::Block*> blocks;
  for (auto& worker : held)
    for (auto& b : worker) blocks.push_back(&*b);
  return assemble_model(plan, users, blocks);
}

}  // namespace gyre::mf
