// apps/lda/lda/lda_kernel.hpp — LDA's per-worker rotation kernel: documents stay, word-topic blocks visit.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <vector>

#include "gyre/data/corpus.hpp"
#include "gyre/model/row_blocks.hpp"
#include "gyre/rotation/rotation_kernel.hpp"
#include "lda/config.hpp"
#include "lda/topic_count_rows.hpp"

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
//
// A token's topic is kept in 16 bits when K ≤ 65 535 and in 32 when K is larger (up to
// kMaxTopics): the sampler is one template over the topic's width (lda_kernel.cpp), chosen when
// the kernel is made, so the per-token state of the usual K does not grow for the few runs of
// more topics.
class LdaKernel : public rotation::RotationKernel {
 public:
  // `blocks` is the job's word blocking; `word_tokens` the corpus's tokens per word id (V of
  // them); `reports_totals`: this worker adds the topic-totals part of the log-likelihood
  // (exactly one worker of a job does). Under the allreduce model (config.model) each document
  // group is cut into config.syncs_per_epoch parts, else into one.
  static std::unique_ptr<LdaKernel> make(const LdaConfig& config, const data::Corpus& shard, const model::RowBlocks& blocks,
                                         std::span<const std::uint64_t> word_tokens, std::uint32_t groups,
                                         bool reports_totals);

  // The steps train() is made of. The initialising phase adds this worker's initial topics to
  // a block; a later phase sweeps this worker's tokens of a block whose documents are in
  // document part `part` (every one when there is one part): each of those tokens once.
  virtual void add_initial_topics(model::Block& block) = 0;
  virtual void sweep(model::Block& block, std::uint32_t part) = 0;
  // Sums the workers' changes to the topic totals since the last call (a collective over the
  // attached communicator), so that every view is the job's totals.
  virtual void sync_totals() = 0;
  // The same merge without a collective, for Harp's no-sync model (lda/allreduce.cpp), whose
  // workers push their changes and add the peers' as they arrive: this worker's changes to the
  // totals since the last call (or sync_totals()), which count as merged from then on; and
  // peers' changes, added to this worker's view.
  virtual std::vector<std::int64_t> take_totals_change() = 0;
  virtual void add_peer_totals(std::span<const std::int64_t> change) = 0;
  // Adds the word-topic part of the log-likelihood of `block`, whose counts are final for the
  // phase, to the phase's sums, and shows the block to the final-block observer. Every block
  // comes here exactly once per phase, from one worker.
  virtual void add_word_loglik(const model::Block& block) = 0;
  // Who sees every block whose counts are final for the phase (held-out evaluation); it may
  // only read the block, and is called on this worker's threads.
  virtual void show_final_blocks(std::function<void(const model::Block&)> observer) = 0;
  // Throws std::invalid_argument unless `block` has the plan's shape for its id and every row
  // holds exactly its word's tokens in the corpus, no count negative (a summed replica, or a
  // block packed in another form by a test).
  virtual void check_counts(const model::Block& block) const = 0;
  // Every block this kernel will see is made and passed on by workers of this process (the
  // embedded job, not resumed from a checkpoint): a visit skips the check of the block's counts
  // against the plan, a scan of its V × K counts, which guards against peers in other processes.
  virtual void trust_blocks() = 0;

  virtual std::uint32_t topics() const noexcept = 0;
  virtual std::uint32_t docs() const noexcept = 0;
  virtual std::uint64_t tokens() const noexcept = 0;
  // The doc-topic counts, built from the tokens' topics (the sampler keeps none): row d is local
  // document d's.
  virtual TopicCountRows doc_topic_rows() const = 0;
  // The same after training, once the sampler's index and per-slot state are freed: the kernel
  // cannot sample or report any more.
  virtual TopicCountRows take_doc_topic_rows() = 0;
  // This worker's view of the topic totals (after a phase: the job's totals).
  virtual const std::vector<std::int64_t>& topic_totals() const noexcept = 0;
  // Every token's topic, in the shard's token order (a copy, 4 bytes a token, whatever width the
  // sampler keeps them in).
  virtual std::vector<std::uint32_t> assignments() const = 0;
  // The same without a copy when K ≤ 65 535 (the sampler's own 16-bit topics); else empty.
  virtual std::span<const std::uint16_t> narrow_assignments() const noexcept = 0;
  // Puts the kernel where a checkpoint left it, after `phases_done` phases (the initialising one
  // included): the tokens' topics (`topics`, as assignments() gave them; the doc-topic counts and
  // word-major copies follow from them) and the job's topic totals. Throws std::invalid_argument
  // when they do not fit this worker's shard.
  virtual void restore(std::span<const std::uint32_t> topics, std::span<const std::int64_t> totals,
                       std::uint64_t phases_done) = 0;
};

}  // namespace gyre::lda
