// apps/lda/trainer.cpp — wires LDA kernels, the rotation schedule and the epoch policy together.
#include "lda/trainer.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <stdexcept>
#include <string>
#include <tuple>

#include "gyre/base/limits.hpp"
#include "lda/allreduce.hpp"
#include "lda/checkpoint.hpp"
#include "lda/epoch_heldout.hpp"
#include "lda/warm_start.hpp"
#include "lda/word_topic_block.hpp"

namespace gyre::lda {
namespace {

void validate(const LdaConfig& c) {
  auto need = [](bool ok, const std::string& what) {
    if (!ok) throw std::invalid_argument(what);
  };
  need(c.topics >= 1 && c.topics <= kMaxTopics, "topics must be in 1.." + std::to_string(kMaxTopics));
  need(c.alpha >= 0 && c.beta > 0 && std::isfinite(c.alpha) && std::isfinite(c.beta),
       "alpha must be finite and >= 0 (0: 50/K), beta finite and > 0");
  need(c.mh_steps >= 1 && c.mh_steps <= 64, "mh-steps must be in 1..64");
  need(c.workers >= 1 && c.workers <= kMaxWorkers && c.threads >= 1 && c.threads <= kMaxThreads && c.depth >= 1 &&
           c.depth <= kMaxDepth && c.blocks_per_worker >= 0 && c.blocks_per_worker <= kMaxDepth,
       "workers must be in 1..4096, threads in 1..4096, depth and blocks per worker in 1..1024");
  need(c.epochs >= 0 && c.epochs <= 1'000'000, "epochs must be in 0..1000000");
  need(c.syncs_per_epoch >= 1 && c.syncs_per_epoch <= kMaxSyncsPerEpoch, "syncs-per-epoch must be in 1..1024");
}

// The phases a resumed run has behind it: the initialising one and a sweep per epoch.
std::uint64_t first_phase(const LdaConfig& c) { return c.start ? static_cast<std::uint64_t>(c.start->epoch) + 1 : 0; }

class EpochPolicy {
 public:
  EpochPolicy(const LdaPlan& plan, std::function<void(const EpochReport&)> on_epoch)
      : epochs_(plan.config.epochs),
        tokens_(static_cast<double>(plan.tokens)),
        on_epoch_(std::move(on_epoch)),
        done_(static_cast<int>(first_phase(plan.config))) {}

  std::optional<rotation::PhaseKind> operator()(const rotation::PhaseResult* last) {
    if (last != nullptr) {
      seconds_ += last->seconds;
      EpochReport r;
      r.epoch = done_++;
      r.seconds = seconds_;
      r.loglik_per_token = tokens_ > 0 ? last->report<LdaReport>().log_likelihood / tokens_ : 0.0;
      // Counts cannot go astray, but priors can (a huge alpha or beta): stop before writing NaNs.
      if (!std::isfinite(r.loglik_per_token))
        throw std::runtime_error("the log-likelihood of epoch " + std::to_string(r.epoch) + " is " +
                                 std::to_string(r.loglik_per_token) + " (are alpha and beta sensible?); no model is written");
      r.tokens_per_s = last->seconds > 0 ? last->report<LdaReport>().tokens_sampled / last->seconds : 0.0;
      if (on_epoch_) on_epoch_(r);
    }
    if (done_ <= epochs_) return rotation::PhaseKind::kTrain;
    return std::nullopt;
  }

 private:
  int epochs_;
  double tokens_;
  std::function<void(const EpochReport&)> on_epoch_;
  int done_ = 0;  // phases finished; phase 0 initialises
  double seconds_ = 0;
};

}  // namespace

LdaPlan plan_job(const LdaConfig& config, std::uint32_t vocab, const std::vector<std::uint64_t>& word_counts) {
  validate(config);
  if (word_counts.size() != vocab) throw std::invalid_argument("word counts do not cover the vocabulary");
  LdaPlan plan;
  plan.config = config;
  plan.vocab = vocab;
  plan.tokens = std::accumulate(word_counts.begin(), word_counts.end(), std::uint64_t{0});
  plan.word_tokens = word_counts;
  const auto blocks = static_cast<std::uint32_t>(config.workers * config.group_size());
  plan.blocks = model::RowBlocks::balance(word_counts, blocks);
  plan.block_shapes = packed_shapes(plan.blocks, plan.word_tokens, config.topics);
  // Groups for balance only: the sampler reads one word row at a time (lda_kernel.cpp), so a
  // sub-range's rows need not fit in cache, and every further group costs a rebuild of each
  // document's counts per visit.
  plan.groups = rotation::choose_groups(config.threads, 0, 0);
  plan.schedule = std::make_shared<rotation::RotationSchedule>(config.workers, config.group_size(), config.ring, config.seed,
                                                                first_phase(config));
  return plan;
}

std::unique_ptr<LdaKernel> make_kernel(const LdaPlan& plan, int worker, const data::Corpus& shard) {
  if (shard.vocab_size() != plan.vocab) throw std::invalid_argument("a shard with another vocabulary");
  if (const auto& warm = plan.config.warm_start; warm && (warm->topics() != plan.config.topics || warm->vocab() != plan.vocab))
    throw std::invalid_argument("a warm start of " + std::to_string(warm->topics()) + " topics and " +
                                std::to_string(warm->vocab()) + " words for a run of " +
                                std::to_string(plan.config.topics) + " topics and " + std::to_string(plan.vocab) + " words");
  auto kernel = LdaKernel::make(plan.config, shard, plan.blocks, plan.word_tokens, plan.groups, worker == 0);
  if (const auto& start = plan.config.start)
    kernel->restore(start->topics.at(static_cast<std::size_t>(worker)), start->topic_totals, first_phase(plan.config));
  return kernel;
}

model::Block starting_block(const LdaPlan& plan, model::BlockId id) {
  const model::BlockShape& shape = plan.block_shapes.at(id);
  const auto& start = plan.config.start;
  if (!start) return model::Block::packed(id, shape.rows, shape.max_bytes, Buffer(shape.rows * sizeof(std::uint32_t)));  // empty rows
  if (id >= start->block_counts.size())
    throw std::invalid_argument("the checkpoint has no block " + std::to_string(id) + " (taken with another --depth?)");
  const auto& words = start->block_counts[id];
  if (words.size() * sizeof(std::uint32_t) > shape.max_bytes)
    throw std::invalid_argument("a checkpoint's block " + std::to_string(id) + " has another shape");
  Buffer storage(words.size() * sizeof(std::uint32_t));
  std::memcpy(storage.data(), words.data(), storage.size());
  model::Block block = model::Block::packed(id, shape.rows, shape.max_bytes, std::move(storage));
  try {
    (void)BlockRows(block, plan.config.topics);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument("a checkpoint's block " + std::to_string(id) + ": " + e.what());
  }
  return block;
}

std::vector<model::Block> initial_blocks(const LdaPlan& plan, int worker) {
  std::vector<model::Block> out;
  for (model::BlockId id : plan.schedule->held_at_start(worker, 0)) out.push_back(starting_block(plan, id));
  return out;
}

rotation::PhasePolicy epoch_policy(const LdaPlan& plan, std::function<void(const EpochReport&)> on_epoch) {
  return EpochPolicy(plan, std::move(on_epoch));
}

double LdaModel::word_probability(std::uint32_t topic, std::uint32_t word) const {
  const double v = static_cast<double>(vocab.size());
  return (word_topic.count(word, topic) + beta) /
         (static_cast<double>(topic_totals[topic]) + v * beta);
}

LdaModel model_header(const LdaPlan& plan, std::vector<std::string> vocab, std::span<const std::int64_t> topic_totals) {
  if (vocab.size() != plan.vocab || topic_totals.size() != plan.config.topics)
    throw std::invalid_argument("model parts do not match the plan's vocabulary or topics");
  LdaModel m;
  m.topics = plan.config.topics;
  m.alpha = plan.config.alpha_value();
  m.beta = plan.config.beta;
  m.vocab = std::move(vocab);
  m.tokens = plan.tokens;
  m.topic_totals.assign(topic_totals.begin(), topic_totals.end());
  return m;
}

LdaModel assemble_model(const LdaPlan& plan, std::vector<std::string> vocab, std::vector<DocTopicRows> docs,
                        std::span<const std::int64_t> topic_totals, std::vector<model::Block> blocks) {
  const std::uint32_t K = plan.config.topics;
  LdaModel m = model_header(plan, std::move(vocab), topic_totals);
  // Two passes over the blocks: each word's non-zero topics, then the rows themselves, each
  // block freed once copied, so that the counts are never held twice.
  std::vector<std::uint64_t> nonzero(plan.vocab, 0);
  for (const model::Block& b : blocks) {
    if (b.id() >= plan.blocks.rows.size() || b.rows() != plan.blocks.rows[b.id()].size() || (!b.packed() && b.stride() < K))
      throw std::invalid_argument("a word block that is not the plan's");
    const BlockRows rows(b, K);
    for (std::size_t row = 0; row < b.rows(); ++row)
      rows.for_each(row, [&](std::uint32_t, std::int32_t) { ++nonzero[plan.blocks.rows[b.id()][row]]; });
  }
  m.word_topic = TopicCountRows::with_sizes(K, nonzero);
  std::vector<std::uint32_t> topics;
  std::vector<std::int32_t> counts;
  for (; !blocks.empty(); blocks.pop_back()) {
    const model::Block& b = blocks.back();
    const BlockRows rows(b, K);
    for (std::size_t row = 0; row < b.rows(); ++row) {
      topics.clear();
      counts.clear();
      rows.for_each(row, [&](std::uint32_t k, std::int32_t n) {
        topics.push_back(k);
        counts.push_back(n);
      });
      m.word_topic.set_sparse_row(plan.blocks.rows[b.id()][row], topics, counts);
    }
  }
  for (const auto& part : docs)
    if (part.counts.rows() != part.doc_ids.size() || part.counts.topics() != K)
      throw std::invalid_argument("doc-topic rows do not match their doc ids");
  if (docs.size() == 1 && std::is_sorted(docs[0].doc_ids.begin(), docs[0].doc_ids.end())) {
    m.doc_ids.assign(docs[0].doc_ids.begin(), docs[0].doc_ids.end());
    m.doc_topic = std::move(docs[0].counts);
    return m;
  }
  // Documents in id order whichever worker sampled them.
  std::vector<std::tuple<std::uint64_t, std::size_t, std::size_t>> rows;  // id, part, row
  for (std::size_t p = 0; p < docs.size(); ++p)
    for (std::size_t d = 0; d < docs[p].doc_ids.size(); ++d) rows.emplace_back(docs[p].doc_ids[d], p, d);
  std::sort(rows.begin(), rows.end());
  m.doc_topic = TopicCountRows(K);
  for (const auto& [id, p, d] : rows) {
    m.doc_ids.push_back(id);
    m.doc_topic.add_row_of(docs[p].counts, d);
  }
  return m;
}

namespace {

// `owned`: the caller handed the shards over (the same vector as `shards`), so their words may go
// once the kernels have laid them out.
LdaModel train_in_process(const LdaConfig& config, const std::vector<data::Corpus>& shards,
                          std::vector<data::Corpus>* owned, const TrainHooks& hooks) {
  if (static_cast<int>(shards.size()) != config.workers) throw std::invalid_argument("one corpus shard per worker");
  if (shards.empty()) throw std::invalid_argument("no corpus");
  const LdaPlan plan = plan_job(config, shards.front().vocab_size(), data::count_words(shards));
  if (config.model != ComputationModel::kRotation) {
    std::uint64_t doc_id_limit = 0;
    for (const auto& s : shards)
      for (const std::uint64_t id : s.doc_ids) doc_id_limit = std::max(doc_id_limit, id + 1);
    return *train_shared_models(plan, shards, shards.front().vocab, doc_id_limit, hooks, hooks.backend, hooks.job.timeout);
  }
  std::optional<EpochHeldout> heldout;
  if (hooks.heldout) heldout.emplace(plan, *hooks.heldout);
  std::vector<std::unique_ptr<LdaKernel>> kernels;
  std::vector<rotation::EmbeddedWorker> workers(static_cast<std::size_t>(config.workers));
  for (int w = 0; w < config.workers; ++w) {
    kernels.push_back(make_kernel(plan, w, shards[static_cast<std::size_t>(w)]));
    // Blocks restored from a checkpoint file are checked on their visits like a peer's.
    if (!config.start) kernels.back()->trust_blocks();
    if (heldout) heldout->watch(*kernels.back());
    workers[static_cast<std::size_t>(w)].kernel = kernels.back().get();
    workers[static_cast<std::size_t>(w)].initial_blocks = initial_blocks(plan, w);
  }
  if (owned)  // the kernels hold their tokens now; ids and the vocabulary are still read at the end
    for (auto& shard : *owned) std::vector<std::uint32_t>().swap(shard.words);
  double last_loglik = 0;
  auto on_epoch = [&](const EpochReport& r) {
    last_loglik = r.loglik_per_token;
    if (hooks.on_epoch) hooks.on_epoch(heldout ? heldout->add_to(r) : r);
  };
  rotation::EmbeddedJobOptions job = hooks.job;
  job.threads_per_worker = config.threads;
  job.depth = config.depth;
  auto policy = epoch_policy(plan, on_epoch);
  take_checkpoints(plan, hooks.checkpoints, policy, job,
                   [&](int w) -> const LdaKernel& { return *kernels[static_cast<std::size_t>(w)]; });
  auto held = rotation::run_embedded(*plan.schedule, std::move(workers), policy, job, hooks.backend);

  std::vector<DocTopicRows> docs(static_cast<std::size_t>(config.workers));
  const std::vector<std::int64_t> totals = kernels.front()->topic_totals();
  for (int w = 0; w < config.workers; ++w) {
    if (hooks.inspect) hooks.inspect(w, *kernels[static_cast<std::size_t>(w)]);
    auto& part = docs[static_cast<std::size_t>(w)];
    part.doc_ids = shards[static_cast<std::size_t>(w)].doc_ids;
    part.counts = kernels[static_cast<std::size_t>(w)]->take_doc_topic_rows();
    kernels[static_cast<std::size_t>(w)].reset();  // its tokens are not needed any more
  }
  std::vector<model::Block> blocks;
  for (auto& worker : held)
    for (auto& b : worker) blocks.push_back(b.release());
  held.clear();
  LdaModel model = assemble_model(plan, shards.front().vocab, std::move(docs), totals, std::move(blocks));
  model.loglik_per_token = last_loglik;
  return model;
}

}  // namespace

LdaModel train_embedded(const LdaConfig& config, const std::vector<data::Corpus>& shards, const TrainHooks& hooks) {
  return train_in_process(config, shards, nullptr, hooks);
}

LdaModel train_embedded(const LdaConfig& config, std::vector<data::Corpus>&& shards, const TrainHooks& hooks) {
  return train_in_process(config, shards, &shards, hooks);
}

}  // namespace gyre::lda
