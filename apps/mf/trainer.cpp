// apps/mf/trainer.cpp — wires MF kernels, the rotation schedule and the epoch policy together.
#include "mf/trainer.hpp"

#include <algorithm>
#include <cmath>
#include <memory>
#include <stdexcept>

#include "gyre/data/partition.hpp"
#include "mf/factor_init.hpp"
#include "mf/item_blocks.hpp"
#include "mf/mf_kernel.hpp"

namespace gyre::mf {
namespace {

void validate(const MfConfig& c, std::size_t shards) {
  auto need = [](bool ok, const char* what) {
    if (!ok) throw std::invalid_argument(what);
  };
  need(c.rank >= 1 && c.rank <= 4096, "rank must be in 1..4096");
  need(c.workers >= 1 && c.threads >= 1 && c.depth >= 1, "workers, threads and depth must be at least 1");
  need(c.epochs >= 0 && c.eval_every >= 1, "epochs must be >= 0 and eval-every >= 1");
  need(c.learning_rate > 0 && c.lr_decay > 0 && c.lambda >= 0 && c.lambda_bias >= 0 && c.init_scale >= 0,
       "learning rate and decay must be positive, regularisation and init scale non-negative");
  need(static_cast<int>(shards) == c.workers, "one training shard per worker");
}

// The scheduler-side epoch bookkeeping: which phase comes next and what to report.
class EpochPolicy {
 public:
  EpochPolicy(const MfConfig& c, bool has_test, std::function<void(const EpochReport&)> on_epoch)
      : config_(c), has_test_(has_test), on_epoch_(std::move(on_epoch)) {}

  std::optional<scheduler::PhaseKind> operator()(const scheduler::PhaseResult* last) {
    using scheduler::PhaseKind;
    if (last == nullptr) return next();
    const auto& s = last->sums;
    if (last->kind == PhaseKind::kTrain) {
      ++done_;
      seconds_ += last->seconds;
      report_ = EpochReport{};
      report_.epoch = done_;
      report_.seconds = seconds_;
      report_.train_rmse = s[kTrainCount] > 0 ? std::sqrt(s[kTrainLoss] / s[kTrainCount]) : 0.0;
      report_.updates_per_s = last->seconds > 0 ? s[kTrainCount] / last->seconds : 0.0;
      if (has_test_ && (done_ % config_.eval_every == 0 || done_ == config_.epochs)) return PhaseKind::kEvaluate;
    } else {
      report_.test_rmse = s[kTestCount] > 0 ? std::sqrt(s[kTestLoss] / s[kTestCount]) : 0.0;
    }
    if (on_epoch_) on_epoch_(report_);
    return next();
  }

 private:
  std::optional<scheduler::PhaseKind> next() const {
    if (done_ < config_.epochs) return scheduler::PhaseKind::kTrain;
    return std::nullopt;
  }

  MfConfig config_;
  bool has_test_;
  std::function<void(const EpochReport&)> on_epoch_;
  int done_ = 0;
  double seconds_ = 0;
  EpochReport report_;
};

}  // namespace

float MfModel::predict(std::uint32_t user_row, std::uint32_t item) const {
  float p = 0;
  for (std::uint32_t j = 0; j < rank; ++j)
    p += user_factors[std::size_t{user_row} * rank + j] * item_factors[std::size_t{item} * rank + j];
  if (biases) p += mean + user_bias[user_row] + item_bias[item];
  return p;
}

std::vector<data::RatingsSet> shard_by_user(const data::RatingsSet& set, std::uint32_t parts) {
  return data::split_by_user(set, data::partition_users(set, parts));
}

MfModel train_embedded(const MfConfig& config, std::vector<data::RatingsSet> train_shards,
                       const data::RatingsSet& test, const TrainHooks& hooks) {
  validate(config, train_shards.size());
  const auto P = static_cast<std::uint32_t>(config.workers);
  std::uint32_t users = test.users;
  std::uint32_t items = test.items;
  for (const auto& s : train_shards) {
    users = std::max(users, s.users);
    items = std::max(items, s.items);
  }

  // Test ratings follow their user's training shard; users seen only in the test go by id.
  std::vector<std::uint32_t> worker_of(users, 0);
  std::vector<bool> placed(users, false);
  double sum = 0;
  std::uint64_t count = 0;
  for (std::uint32_t w = 0; w < P; ++w)
    for (const auto& r : train_shards[w].ratings) {
      worker_of[r.user] = w;
      placed[r.user] = true;
      sum += r.value;
      ++count;
    }
  for (std::uint32_t u = 0; u < users; ++u)
    if (!placed[u]) worker_of[u] = u % P;
  std::vector<data::RatingsSet> test_shards(P);
  for (auto& t : test_shards) {
    t.users = users;
    t.items = items;
  }
  for (const auto& r : test.ratings) test_shards[worker_of[r.user]].ratings.push_back(r);
  const float mean = count > 0 ? static_cast<float>(sum / static_cast<double>(count)) : 0.0f;

  const scheduler::RotationSchedule schedule(config.workers, config.depth, config.ring, config.seed);
  const auto blocks = ItemBlocks::balance(count_items(train_shards, items), static_cast<std::uint32_t>(schedule.blocks()));
  const RowLayout layout = RowLayout::of(config);
  std::size_t max_rows = 0;
  for (const auto& b : blocks.items) max_rows = std::max(max_rows, b.size());
  const std::uint32_t groups = choose_groups(config.threads, max_rows, layout.stride * sizeof(float));

  std::vector<std::unique_ptr<MfKernel>> kernels;
  std::vector<pipeline::EmbeddedWorker> workers(P);
  for (std::uint32_t w = 0; w < P; ++w) {
    kernels.push_back(std::make_unique<MfKernel>(config, train_shards[w], test_shards[w], blocks, mean, groups));
    train_shards[w] = {};
    test_shards[w] = {};
    workers[w].kernel = kernels.back().get();
    for (model::BlockId id : schedule.held_at_start(static_cast<int>(w), 0)) {
      model::Block block(id, blocks.items[id].size(), layout.stride);
      for (std::size_t row = 0; row < blocks.items[id].size(); ++row)
        init_row(block.row(row), config.rank, config.seed, Side::kItem, blocks.items[id][row], config.init_scale);
      workers[w].initial_blocks.push_back(std::move(block));
    }
  }

  pipeline::EmbeddedJobOptions job = hooks.job;
  job.threads_per_worker = config.threads;
  EpochPolicy policy(config, !test.ratings.empty(), hooks.on_epoch);
  auto held = pipeline::run_embedded(schedule, std::move(workers), std::ref(policy), job);

  MfModel model;
  model.rank = config.rank;
  model.biases = config.biases;
  model.mean = config.biases ? mean : 0.0f;
  model.users = users;
  model.items = items;
  model.item_factors.assign(std::size_t{items} * config.rank, 0.0f);
  model.item_bias.assign(config.biases ? items : 0, 0.0f);
  for (auto& worker_blocks : held)
    for (auto& owned : worker_blocks) {
      const model::Block& b = *owned;
      for (std::size_t row = 0; row < b.rows(); ++row) {
        const std::uint32_t item = blocks.items[b.id()][row];
        std::copy_n(b.row(row), config.rank, model.item_factors.begin() + std::ptrdiff_t{item} * config.rank);
        if (config.biases) model.item_bias[item] = b.row(row)[layout.width];
      }
    }
  // Users in id order whichever worker holds them.
  std::vector<std::pair<std::uint32_t, const float*>> rows;
  for (const auto& k : kernels)
    for (std::uint32_t r = 0; r < k->users().global_ids.size(); ++r) rows.emplace_back(k->users().global_ids[r], k->user_row(r));
  std::sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  for (const auto& [id, row] : rows) {
    model.user_ids.push_back(id);
    model.user_factors.insert(model.user_factors.end(), row, row + config.rank);
    if (config.biases) model.user_bias.push_back(row[layout.width]);
  }
  return model;
}

}  // namespace gyre::mf
