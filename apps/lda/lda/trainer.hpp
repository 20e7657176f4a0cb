// apps/lda/lda/trainer.hpp — train LDA in one process (by rotation, or under the allreduce model) and collect the model.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "gyre/checkpoint/epoch_checkpoints.hpp"
#include "gyre/data/corpus.hpp"
#include "gyre/model/row_blocks.hpp"
#include "gyre/rotation/rotation_job.hpp"
#include "lda/config.hpp"
#include "lda/topic_count_rows.hpp"
#include "lda/heldout.hpp"
#include "lda/lda_kernel.hpp"

namespace gyre::lda {

struct EpochReport {
  int epoch = 0;                  // 0: the random initial state; then 1-based sweeps
  double seconds = 0;             // wall time so far, initialisation included
  double loglik_per_token = 0;    // joint log p(w, z) / tokens, of the state after the epoch
  double tokens_per_s = 0;        // this epoch's sampled tokens per second (0 for epoch 0)
  // Of TrainHooks::heldout's documents against the model after the epoch (lda/heldout.hpp);
  // its time is not in `seconds`.
  std::optional<double> heldout_perplexity;
};

// What every rank computes the same way before training: the vocabulary size, the word
// blocking (balanced by global token counts), grid size and schedule.
struct LdaPlan {
  LdaConfig config;
  std::uint32_t vocab = 0;
  std::uint64_t tokens = 0;  // the whole corpus
  std::vector<std::uint64_t> word_tokens;  // per word id, over the whole corpus
  model::RowBlocks blocks;
  std::vector<model::BlockShape> block_shapes;  // packed (word_topic_block.hpp), by block id
  std::uint32_t groups = 1;
  std::shared_ptr<const rotation::RotationSchedule> schedule;
};

// Word counts are the corpus's tokens per word id (data::count_words over every shard, or a
// partition's word_counts.txt).
LdaPlan plan_job(const LdaConfig& config, std::uint32_t vocab, const std::vector<std::uint64_t>& word_counts);
std::unique_ptr<LdaKernel> make_kernel(const LdaPlan& plan, int worker, const data::Corpus& shard);
// Word block `id` as training starts it, packed in the plan's shape: all counts zero, or a
// resume's checkpointed counts (config.start).
model::Block starting_block(const LdaPlan& plan, model::BlockId id);
// Worker `worker`'s blocks at the start (starting_block of each).
std::vector<model::Block> initial_blocks(const LdaPlan& plan, int worker);
// The initialising phase, then config.epochs sweeps, an EpochReport after each.
rotation::PhasePolicy epoch_policy(const LdaPlan& plan, std::function<void(const EpochReport&)> on_epoch);

// The trained state: word-topic and doc-topic counts (the sufficient statistics; the
// distributions follow with the priors) and the topic totals. Both count matrices are sparse
// rows, so a model costs memory in proportion to its tokens, never V × K or D × K.
struct LdaModel {
  std::uint32_t topics = 0;
  double alpha = 0, beta = 0;
  std::vector<std::string> vocab;           // word id → word
  TopicCountRows word_topic;                // a row per word id (V)
  std::vector<std::int64_t> topic_totals;   // K
  std::vector<std::uint64_t> doc_ids;       // ascending
  TopicCountRows doc_topic;                 // a row per doc_ids entry
  std::uint64_t tokens = 0;
  double loglik_per_token = 0;              // of the final state

  // φ_k(w) = (n_wk + β) / (n_k + Vβ).
  double word_probability(std::uint32_t topic, std::uint32_t word) const;
};

// One worker's documents as training left them: their ids in the whole corpus and their topic
// counts, a row each in doc_ids order. The rows are the kernel's own in one process and gathered
// copies across processes; both paths assemble the model here, so they cannot drift apart.
struct DocTopicRows {
  std::span<const std::uint64_t> doc_ids;
  TopicCountRows counts;
};
// `topic_totals` are the job's (every kernel's view after the last phase); `blocks` are all of
// the plan's word blocks, freed one by one as they are copied into the model. Throws
// std::invalid_argument when the parts do not fit the plan.
LdaModel assemble_model(const LdaPlan& plan, std::vector<std::string> vocab, std::vector<DocTopicRows> docs,
                        std::span<const std::int64_t> topic_totals, std::vector<model::Block> blocks);
// A model's fields without its counts: topics, priors, vocabulary, tokens, the job's totals.
LdaModel model_header(const LdaPlan& plan, std::vector<std::string> vocab, std::span<const std::int64_t> topic_totals);

struct TrainHooks {
  std::function<void(const EpochReport&)> on_epoch;
  // Multi-process runs: bytes this rank's worker put on the wire during training.
  std::function<void(std::uint64_t)> on_traffic;
  // threads_per_worker is taken from the config; the allreduce model uses only the timeout.
  rotation::EmbeddedJobOptions job;
  // Called on every worker's kernel after training (tests inspect the counts).
  std::function<void(int worker, const LdaKernel&)> inspect;
  // The links between the job's members, all in this process: in-process queues, or tcp on
  // loopback (tests run it over the real wire).
  runtime::Backend backend = runtime::ThreadsBackend{};
  // Held-out documents on the corpus's word ids: every EpochReport then carries their
  // perplexity. train_embedded only (every worker in this process); train_distributed refuses it.
  const HeldoutSet* heldout = nullptr;
  checkpoint::CheckpointTarget checkpoints;  // the rotation only (lda/checkpoint.hpp)
  // Multi-process runs: every rank writes its own part of the model there (lda/model_io.hpp,
  // version 2) and no rank gathers it; rank 0's `top` receives each topic's `top_words`.
  struct Parts {
    std::filesystem::path directory;
    std::size_t top_words = 10;
    std::vector<std::vector<std::string>>* top = nullptr;
  };
  std::optional<Parts> parts;
};

// `shards` has one corpus shard per worker (config.workers of them, sharing the vocabulary).
// config.model picks the rotation or the allreduce model (lda/allreduce.hpp); both on
// hooks.backend. Throws std::invalid_argument on a config that cannot run,
// runtime::JobFailed if the job fails.
LdaModel train_embedded(const LdaConfig& config, const std::vector<data::Corpus>& shards, const TrainHooks& hooks = {});
// The same, taking the shards: under the rotation their words (4 bytes a token) are freed once
// the workers have laid their tokens out.
LdaModel train_embedded(const LdaConfig& config, std::vector<data::Corpus>&& shards, const TrainHooks& hooks = {});

}  // namespace gyre::lda
