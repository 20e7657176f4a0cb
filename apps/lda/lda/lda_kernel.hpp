// apps/lda/lda/lda_kernel.hpp — LDA's per-worker rotation kernel: documents stay, word-topic blocks visit.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "gyre/data/corpus.hpp"
#include "gyre/model/row_blocks.hpp"
#include "gyre/pipeline/cell_grid.hpp"
#include "gyre/pipeline/rotation_kernel.hpp"
#include "gyre/scheduler/phase_report.hpp"
#include "lda/config.hpp"
#include "lda/topic_count_rows.hpp"
#include "lda/log_gamma.hpp"
#include "lda/word_topic_block.hpp"
#include "lda/worker_tokens.hpp"

namespace gyre::lda {

// What an LDA worker reports for a phase.
struct LdaReport {
  double log_likelihood = 0;  // joint log p(words, topics) of the state at the end of the phase (summed parts)
  double tokens_sampled = 0;  // tokens resampled in the phase (0 in the initialising phase)
};

// The first training phase of a job initialises: each visit adds the worker's random initial
// topics to the visiting block's counts (blocks start empty, so no rank needs anyone else's
// tokens to build them). Every later training phase is a Gibbs sweep.
//
// Sampling is Metropolis-Hastings in the style of WarpLDA (Chen et al., VLDB 2016), O(1) per
// step whatever K, in three passes over each cell of a visit (lda_kernel.cpp): word proposals
// (n_wk + β) drawn word-major, walked doc-major against each document's counts, rebuilt from
// its tokens' topics; doc proposals (n_dk + α) drawn there and walked word-major against the
// block's row. Each pass reads one count matrix in its own order, and the ratio of each walk
// leaves out the matrix its proposals came from, held at the values they were drawn from (the
// delayed update). No documents × K matrix is kept: doc_topic_rows() builds sparse rows on demand.
//
// Topic totals n_k do not rotate: each worker keeps a view (the last agreed totals plus its own
// changes since), and after every visit the workers allreduce their changes, so a view is at
// most one visit stale. Inside a visit, the cells of a diagonal round see the totals as of the
// round's start plus their own changes, folded in cell order afterwards: bitwise reproducible
// for fixed seed, P, d and T.
//
// A visiting block comes from a peer, so its counts are checked against the plan before any
// of them is used as a length or an index (see row_tokens).
//
// Blocks are packed (word_topic_block.hpp: each row sparse or dense, whichever is smaller), so
// a worker holds its blocks in memory proportional to their non-zero counts; a visit unpacks
// the rows it walks in place (more than K/4 tokens) and packs the block anew from its tokens'
// topics at the end. Harp's allreduce model sums dense replicas instead, and the kernel walks
// their rows in place: the same draws either way.
//
// Harp's allreduce model (lda/allreduce.cpp) drives the same sampler without the rotation: each
// worker holds a replica of every block and calls the public steps below itself, with
// config.syncs_per_epoch document parts (see WorkerTokens) instead of one.
class LdaKernel final : public pipeline::RotationKernel {
 public:
  // `blocks` is the job's word blocking; `word_tokens` the corpus's tokens per word id (V of
  // them); `reports_totals`: this worker adds the topic-totals part of the log-likelihood
  // (exactly one worker of a job does). Under the allreduce model (config.model) each document
  // group is cut into config.syncs_per_epoch parts, else into one.
  LdaKernel(const LdaConfig& config, const data::Corpus& shard, const model::RowBlocks& blocks,
            std::span<const std::uint64_t> word_tokens, std::uint32_t groups, bool reports_totals);

  void attach(collective::Communicator& workers) override { workers_ = &workers; }
  void train(model::Block& block, const scheduler::Visit& visit) override;
  void evaluate(const model::Block& block, const scheduler::Visit& visit) override;
  scheduler::PhaseSums take_phase_sums(scheduler::PhaseKind kind) override;

  // The steps train() is made of. The initialising phase adds this worker's initial topics to
  // a block; a later phase sweeps this worker's tokens of a block whose documents are in
  // document part `part` (every one when there is one part): each of those tokens once.
  void add_initial_topics(model::Block& block);
  void sweep(model::Block& block, std::uint32_t part);
  // Sums the workers' changes to the topic totals since the last call (a collective over the
  // attached communicator), so that every view is the job's totals.
  void sync_totals();
  // Adds the word-topic part of the log-likelihood of `block`, whose counts are final for the
  // phase, to the phase's sums, and shows the block to the final-block observer. Every block
  // comes here exactly once per phase, from one worker.
  void add_word_loglik(const model::Block& block);
  // Who sees every block whose counts are final for the phase (held-out evaluation); it may
  // only read the block, and is called on this worker's threads.
  void show_final_blocks(std::function<void(const model::Block&)> observer) { final_block_observer_ = std::move(observer); }
  // Throws std::invalid_argument unless `block` has the plan's shape for its id and every row
  // holds exactly its word's tokens in the corpus, no count negative (a summed replica, or a
  // block packed in another form by a test).
  void check_counts(const model::Block& block) const;
  // Every block this kernel will see is made and passed on by workers of this process (the
  // embedded job, not resumed from a checkpoint): a visit skips the check of the block's counts
  // against the plan, a scan of its V × K counts, which guards against peers in other processes.
  void trust_blocks() { blocks_trusted_ = true; }

  std::uint32_t topics() const noexcept { return K_; }
  std::uint32_t docs() const noexcept { return tokens_.docs(); }
  std::uint64_t tokens() const noexcept { return tokens_.tokens(); }
  // The doc-topic counts, built from the tokens' topics (the sampler keeps none): row d is local
  // document d's.
  TopicCountRows doc_topic_rows() const;
  // The same after training, once the sampler's index and per-slot state are freed: the kernel
  // cannot sample or report any more.
  TopicCountRows take_doc_topic_rows();
  // This worker's view of the topic totals (after a phase: the job's totals).
  const std::vector<std::int64_t>& topic_totals() const noexcept { return totals_; }
  // Every token's topic, in the shard's token order.
  const std::vector<std::uint16_t>& assignments() const noexcept { return z_; }
  // Puts the kernel where a checkpoint left it, after `phases_done` phases (the initialising one
  // included): the tokens' topics (`topics`, as assignments() gave them; the doc-topic counts and
  // word-major copies follow from them) and the job's topic totals. Throws std::invalid_argument
  // when they do not fit this worker's shard.
  void restore(std::span<const std::uint16_t> topics, std::span<const std::int64_t> totals, std::uint64_t phases_done);

 private:
  // The plan's token count of each row of `block` (its word's, in the corpus), once the
  // block's shape is checked to be the plan's.
  const std::vector<std::int32_t>& row_tokens(const model::Block& block) const;
  // The sum of row `r` of a block, throwing on a negative count.
  std::int64_t row_total(const BlockRows& rows, std::size_t r) const;
  // Before a sweep: checks the block's rows against the plan and this worker's tokens, and
  // makes the other workers' topic lists and the rows walked in place.
  void take_in_rows(const model::Block& block);
  // After a sweep: a packed block's rows packed anew from the tokens' topics.
  void pack_swept_rows(model::Block& block);
  // A row of this many tokens is walked against its counts in place, not a copy (see
  // sample_word_major).
  bool walked_in_place(std::int64_t tokens) const noexcept { return tokens > static_cast<std::int64_t>(K_ / 4); }
  // Sets every slot's counted topic from the doc-major topics.
  void copy_to_slots();
  // Makes each group's room for the Metropolis-Hastings state of one cell's tokens (at the
  // first sweep, once the caller has freed the corpus's words).
  void make_token_state();
  double word_loglik(const model::Block& block) const;
  // The same from the tokens, right after sweep(block, ·): the other workers' topic lists (which
  // the sweep did not change) and this worker's tokens, O(tokens) where word_loglik is O(V·K).
  double swept_word_loglik(const model::Block& block) const;
  double doc_loglik() const;
  double totals_loglik() const;

  LdaConfig config_;
  std::uint32_t K_;
  std::size_t stride_;  // of block rows, in counts
  double alpha_, beta_, vbeta_;
  WorkerTokens tokens_;
  std::vector<std::uint16_t> z_;           // topic per position (doc-major)
  std::vector<std::uint16_t> zw_;          // per word-major slot: the topic its block's counts hold
  std::vector<std::uint16_t> token_state_;  // per group, one cell's tokens' current topics and proposals (from the first sweep)
  std::size_t state_stride_ = 0;            // of token_state_, per group
  std::vector<std::int64_t> totals_;       // view of n_k
  std::vector<std::int64_t> pending_;      // own changes to n_k since the last allreduce
  pipeline::GridLocks locks_;
  collective::Communicator* workers_ = nullptr;
  bool reports_totals_;
  bool blocks_trusted_ = false;
  std::function<void(const model::Block&)> final_block_observer_;
  LogGamma lg_alpha_, lg_beta_;
  std::vector<std::vector<std::int32_t>> row_tokens_;  // per block, per row: its word's tokens in the corpus

  // Per-visit scratch, kept to avoid reallocating: the other workers' tokens of the block's
  // words as topic lists per row, and per-group totals during a round.
  std::vector<std::uint64_t> remote_begin_;
  std::vector<std::uint16_t> remote_topics_;
  std::vector<std::int64_t> cell_totals_;  // G × K
  std::vector<std::int32_t> doc_scratch_;  // G × K, zero between documents
  std::vector<std::int32_t> word_scratch_;  // G × K, zero between word rows
  std::vector<std::int32_t*> dense_rows_;   // per row of the visiting block: where it is walked in place, or null
  std::vector<std::int32_t> walked_counts_;  // a packed block's rows walked in place, K each
  RowPacker packer_;

  std::uint64_t phases_done_ = 0;  // the first is the initialising phase
  LdaReport sums_{};
};

}  // namespace gyre::lda
