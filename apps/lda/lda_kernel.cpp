// apps/lda/lda_kernel.cpp — Metropolis-Hastings Gibbs sweeps over a visiting word-topic block on T threads.
#include "lda/lda_kernel.hpp"

#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/task_arena.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "gyre/base/thread_arena.hpp"
#include "gyre/rotation/cell_grid.hpp"
#include "lda/log_gamma.hpp"
#include "lda/metropolis_hastings.hpp"
#include "lda/random.hpp"
#include "lda/topic_order.hpp"
#include "lda/warm_start.hpp"
#include "lda/word_topic_block.hpp"
#include "lda/worker_tokens.hpp"

namespace gyre::lda {
namespace {

// What one cell's sweep reads and writes; every pointer is owned by the cell for the round
// (z and the doc scratch: the cell's documents; zw and the block's rows: the cell's word
// sub-range; the tokens' states: the cell's group, whose cells run one at a time).
template <class Topic>
struct CellState {
  std::span<const TokenRef> tokens;    // the cell's tokens in document order
  const WorkerTokens* layout;
  std::uint32_t block, group, part;
  std::span<const std::uint32_t> rows;  // the sub-range's block rows that hold tokens of the cell
  Topic* z;                    // current topic per position (doc-major)
  Topic* zw;                   // per word-major slot: the topic the block's counts hold for it
  Topic* token_state;          // per token by rank (TokenRef): current topic, M proposals
  std::int32_t* doc_counts;            // K zeros, left zero: one document's counts at a time
  std::int32_t* word_counts;           // K zeros, left zero: one word row's counts at a time
  std::int32_t* const* dense_rows;     // per block row: the counts a row of more than K/4 tokens is walked
                                       // against in place (a dense block's own rows: all of them); else null
  const std::uint64_t* remote_begin;   // per row
  const Topic* remote_topics;  // per row: the other workers' tokens' topics, as the block arrived
  std::int64_t* totals;                // this cell's view of n_k
};

// A token's state during its cell's visit: its current topic, then mh_steps proposals (word
// proposals from pass 1 to pass 2, then doc proposals from pass 2 to pass 3). It lives only
// through the cell's three passes, which begin and end with every token's current topic equal
// to its counted one, so each group keeps one cell's worth, indexed by the tokens' ranks in the
// cell's word-major walk: passes 1 and 3 read it in order, and pass 2's random reads stay
// within it (rather than within a whole sub-range's slots, a fraction 1/G of them the cell's).
std::size_t token_state_stride(int mh_steps) { return 1 + static_cast<std::size_t>(std::max(0, mh_steps)); }

struct Priors {
  std::uint32_t K;
  double alpha, beta, vbeta;
  int mh_steps;
  std::size_t state_stride() const { return token_state_stride(mh_steps); }
};

// How many tokens ahead a pass prefetches its one random access.
constexpr std::uint32_t kAhead = 64;

// With many topics a token's counts miss the cache too: at K = 100 000 a document's or a word
// row's counts are 400 KB, the totals and their weights 1.2 MB, and a token reads them at its
// current topic and each proposal's. So a pass also prefetches those of the token this many
// ahead, whose state is in cache by then (kAhead). At fewer topics they all stay in L1: the
// passes are instantiated without it (`Far`), as even an untaken branch for it in the loop cost
// 5-8% of the tokens a second at K = 1000.
constexpr std::uint32_t kCountsAhead = 8;
constexpr std::uint32_t kPrefetchTopics = 16384;

// The counts and totals a token whose state is `state` (current topic, then its proposals) will
// read and write when it is sampled.
template <class Topic>
inline void prefetch_counts(const Topic* state, int mh_steps, const std::int32_t* counts, const TotalsView& totals) {
  for (int j = 0; j <= mh_steps; ++j) {
    __builtin_prefetch(counts + state[j], 1);
    totals.prefetch(state[j]);
  }
}

// WarpLDA's split (Chen et al., VLDB 2016): every pass reads one count matrix in its own order
// and leaves the other for the next pass, so no token misses the cache on a count row.
//
// 1. Word-major: each token of a row draws M word proposals, q_w(k) ∝ n_wk + β: the topic of
//    a random token of the word (the other workers' as the block arrived, this worker's as
//    counted), or a uniform topic. The row's tokens are a short run, so this stays in cache.
// 2. Doc-major: each document's counts are rebuilt from its tokens' topics (no D × K matrix
//    is kept); each token walks its word proposals, accepted with
//    (n_dt + α)(n_s + Vβ) / ((n_ds + α)(n_t + Vβ)), then draws M doc proposals,
//    q_d(k) ∝ n_dk + α, from its document's topics. Word counts are not touched.
// 3. Word-major: a row first takes in its tokens' moves from pass 2, then each token walks its
//    doc proposals, accepted with (n_wt + β)(n_s + Vβ) / ((n_ws + β)(n_t + Vβ)).
// The ratios leave out the proposal's count matrix, which cancels against the target's when
// both hold the same counts; they are held at the values the proposals were drawn from (the
// delayed update of WarpLDA). The counts of the pass's own matrix and the totals are live and
// exclude the token being sampled.
template <class Topic>
void draw_word_proposals(const CellState<Topic>& c, const Priors& p, Rng& stream) {
  Rng rng = stream;  // a local copy: stores through the count pointers cannot alias it
  const std::size_t S = p.state_stride();
  const std::uint32_t* row_slots = c.layout->rows(c.block);
  Topic* state = c.token_state;  // in rank order
  for (const std::uint32_t r : c.rows) {  // each holds a token of the cell: n_w ≥ 1, as draw needs
    const std::uint64_t rb = c.remote_begin[r];
    const std::uint64_t n_remote = c.remote_begin[r + 1] - rb;
    const std::uint32_t lb = row_slots[r];
    const std::uint64_t n_w = n_remote + (row_slots[r + 1] - lb);
    const Topic* remote = c.remote_topics + rb;
    const Topic* local = c.zw + lb;
    const auto pick = [&](std::uint64_t i) { return *(i < n_remote ? remote + i : local + (i - n_remote)); };
    const RowShare share(n_w, p.beta, p.K);
    const auto [first, last] = c.layout->row_slots(c.block, r, c.group, c.part);
    for (std::uint32_t slot = first; slot < last; ++slot, state += S) {
      state[0] = c.zw[slot];
      for (int j = 0; j < p.mh_steps; ++j) state[1 + j] = static_cast<Topic>(draw(rng, share, p.K, pick));
    }
  }
  stream = rng;
}

template <bool Far, class Topic>
void sample_doc_major(const CellState<Topic>& c, const Priors& p, Rng& stream) {
  Rng rng = stream;  // a local copy: stores through the count pointers cannot alias it
  const std::size_t S = p.state_stride();
  std::int32_t* nd = c.doc_counts;
  TotalsView totals(c.totals, p.K, p.vbeta);
  const TokenRef* t = c.tokens.data();
  const TokenRef* const end = t + c.tokens.size();
  // The cell's tokens are in document order: its documents are found from their positions,
  // walking forward past those of the group that have no token here.
  std::uint32_t d = t != end ? c.layout->doc_at(t->pos) : 0;
  while (t != end) {
    while (c.layout->doc_begin(d + 1) <= t->pos) ++d;
    const std::uint32_t db = c.layout->doc_begin(d), de = c.layout->doc_begin(d + 1);
    for (std::uint32_t i = db; i < de; ++i) ++nd[c.z[i]];
    const std::uint64_t len_d = de - db;
    const auto pick = [&](std::uint64_t i) { return c.z[db + i]; };
    const RowShare share(len_d, p.alpha, p.K);
    for (; t != end && t->pos < de; ++t) {
      if (end - t > kAhead) __builtin_prefetch(c.token_state + t[kAhead].rank * S, 1);  // the pass's one random access
      // (A token ahead in the next document prefetches counts that are rebuilt first: harmless.)
      if (Far && end - t > kCountsAhead) prefetch_counts(c.token_state + t[kCountsAhead].rank * S, p.mh_steps, nd, totals);
      Topic* state = c.token_state + t->rank * S;
      const std::uint32_t s0 = c.z[t->pos];
      --nd[s0];
      totals.remove(s0);
      const std::uint32_t s = walk(rng, s0, state + 1, p.mh_steps, nd, p.alpha, totals);
      ++nd[s];
      totals.add(s);
      c.z[t->pos] = state[0] = static_cast<Topic>(s);
      Topic* proposals = state + 1;  // the word proposals are spent: the doc proposals take their place
      for (int j = 0; j < p.mh_steps; ++j) proposals[j] = static_cast<Topic>(draw(rng, share, p.K, pick));
    }
    for (std::uint32_t i = db; i < de; ++i) nd[c.z[i]] = 0;
  }
  stream = rng;
}

template <bool Far, class Topic>
void sample_word_major(const CellState<Topic>& c, const Priors& p, Rng& stream) {
  Rng rng = stream;  // a local copy: stores through the count pointers cannot alias it
  const std::size_t S = p.state_stride();
  const std::uint32_t* positions = c.layout->slot_positions();
  const std::uint32_t* row_slots = c.layout->rows(c.block);
  TotalsView totals(c.totals, p.K, p.vbeta);
  const Topic* next_state = c.token_state;  // in rank order
  for (const std::uint32_t r : c.rows) {
    const auto [first, last] = c.layout->row_slots(c.block, r, c.group, c.part);
    const Topic* const row_state = next_state;  // by slot - first
    next_state += (last - first) * S;
    // A row of at most K/4 tokens is walked against a copy of its counts in L1, made
    // from its tokens' topics (the other workers' as the block arrived, this worker's as
    // counted: what the block's row holds), and a dense block's row is only written where a
    // token moves (a packed block is packed anew from the tokens after the sweep): at K = 1000
    // a row is 4 KB, and a rare word's few tokens would each miss the cache on 1 + M lines of
    // it. A frequent word's row stays in cache, and copying it for each cell would cost more
    // than it saves (a bound of K instead of K/4: the generated corpus at K = 1000 1-4% slower,
    // the mails no faster); it is walked in place, in a dense row of its own.
    std::int32_t* block_row = c.dense_rows[r];
    const Topic* remote = c.remote_topics + c.remote_begin[r];
    const Topic* const remote_end = c.remote_topics + c.remote_begin[r + 1];
    const bool copied = static_cast<std::uint64_t>(remote_end - remote) + (row_slots[r + 1] - row_slots[r]) <= p.K / 4;
    std::int32_t* nw = copied ? c.word_counts : block_row;
    const auto each_topic = [&](auto f) {
      for (const Topic* k = remote; k != remote_end; ++k) f(*k);
      for (std::uint32_t slot = row_slots[r]; slot < row_slots[r + 1]; ++slot) f(c.zw[slot]);
    };
    if (copied) each_topic([&](Topic k) { ++nw[k]; });
    const auto move_in_block = [&](std::uint32_t from, std::uint32_t to) {
      if (!copied || block_row == nullptr) return;
      --block_row[from];
      ++block_row[to];
    };
    for (std::uint32_t slot = first; slot < last; ++slot)
      if (const Topic now = row_state[(slot - first) * S]; now != c.zw[slot]) {
        --nw[c.zw[slot]];
        ++nw[now];
        move_in_block(c.zw[slot], now);
        c.zw[slot] = now;
      }
    for (std::uint32_t slot = first; slot < last; ++slot) {
      // A moved token's doc-major topic is the pass's one random access.
      if (slot + kAhead < last) __builtin_prefetch(c.z + positions[slot + kAhead], 1);
      if (Far && slot + kCountsAhead < last) prefetch_counts(row_state + (slot + kCountsAhead - first) * S, p.mh_steps, nw, totals);
      const Topic* state = row_state + (slot - first) * S;
      const std::uint32_t s0 = state[0];
      --nw[s0];
      totals.remove(s0);
      const std::uint32_t s = walk(rng, s0, state + 1, p.mh_steps, nw, p.beta, totals);
      ++nw[s];
      totals.add(s);
      if (s != s0) {
        move_in_block(s0, s);
        c.z[positions[slot]] = c.zw[slot] = static_cast<Topic>(s);
      }
    }
    if (copied) each_topic([&](Topic k) { nw[k] = 0; });
  }
  stream = rng;
}

// A fixed chunking summed in order: the same bits for any number of threads.
template <class Part>
double ordered_parallel_sum(std::size_t n, std::size_t chunk, Part part) {
  const std::size_t chunks = (n + chunk - 1) / chunk;
  std::vector<double> partial(chunks, 0.0);
  oneapi::tbb::parallel_for(std::size_t{0}, chunks, [&](std::size_t i) {
    partial[i] = part(i * chunk, std::min(n, (i + 1) * chunk));
  });
  return std::accumulate(partial.begin(), partial.end(), 0.0);
}

}  // namespace

// The sampler, its per-token topics kept as Topic: 16 bits when K ≤ 65 535, else 32.
template <class Topic>
class TopicSampler final : public LdaKernel {
 public:
  TopicSampler(const LdaConfig& config, const data::Corpus& shard, const model::RowBlocks& blocks,
               std::span<const std::uint64_t> word_tokens, std::uint32_t groups, bool reports_totals);

  void attach(collective::Communicator& workers) override { workers_ = &workers; }
  void train(model::Block& block, const rotation::Visit& visit) override;
  void evaluate(const model::Block& block, const rotation::Visit& visit) override;
  rotation::PhaseSums take_phase_sums(rotation::PhaseKind kind) override;
  void add_initial_topics(model::Block& block) override;
  void sweep(model::Block& block, std::uint32_t part) override;
  void sync_totals() override;
  std::vector<std::int64_t> take_totals_change() override {
    std::vector<std::int64_t> change(K_, 0);
    change.swap(pending_);
    return change;
  }
  void add_peer_totals(std::span<const std::int64_t> change) override {
    if (change.size() != K_) throw std::invalid_argument("a peer's topic totals change of the wrong size");
    for (std::uint32_t k = 0; k < K_; ++k) totals_[k] += change[k];
  }
  void add_word_loglik(const model::Block& block) override;
  void show_final_blocks(std::function<void(const model::Block&)> observer) override {
    final_block_observer_ = std::move(observer);
  }
  void check_counts(const model::Block& block) const override;
  void trust_blocks() override { blocks_trusted_ = true; }
  std::uint32_t topics() const noexcept override { return K_; }
  std::uint32_t docs() const noexcept override { return tokens_.docs(); }
  std::uint64_t tokens() const noexcept override { return tokens_.tokens(); }
  TopicCountRows doc_topic_rows() const override;
  TopicCountRows take_doc_topic_rows() override;
  const std::vector<std::int64_t>& topic_totals() const noexcept override { return totals_; }
  std::vector<std::uint32_t> assignments() const override { return {z_.begin(), z_.end()}; }
  std::span<const std::uint16_t> narrow_assignments() const noexcept override {
    if constexpr (std::is_same_v<Topic, std::uint16_t>)
      return z_;
    else
      return {};
  }
  void restore(std::span<const std::uint32_t> topics, std::span<const std::int64_t> totals,
               std::uint64_t phases_done) override;

 private:
  // The plan's token count of each row of `block` (its word's, in the corpus), once the
  // block's shape is checked to be the plan's.
  const std::vector<std::int32_t>& row_tokens(const model::Block& block) const;
  // The sum of row `r` of a block, throwing on a negative count.
  std::int64_t row_total(const BlockRows& rows, std::size_t r) const;
  // Before a sweep: checks the block's rows against the plan and this worker's tokens, and
  // makes the other workers' topic lists and the rows walked in place.
  void take_in_rows(model::Block& block);
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
  std::vector<Topic> z_;           // topic per position (doc-major)
  std::vector<Topic> zw_;          // per word-major slot: the topic its block's counts hold
  std::vector<Topic> token_state_;  // per group, one cell's tokens' current topics and proposals (from the first sweep)
  std::size_t state_stride_ = 0;            // of token_state_, per group
  std::vector<std::int64_t> totals_;       // view of n_k
  std::vector<std::int64_t> pending_;      // own changes to n_k since the last allreduce
  rotation::GridLocks locks_;
  collective::Communicator* workers_ = nullptr;
  bool reports_totals_;
  bool blocks_trusted_ = false;
  std::function<void(const model::Block&)> final_block_observer_;
  LogGamma lg_alpha_, lg_beta_;
  std::vector<std::vector<std::int32_t>> row_tokens_;  // per block, per row: its word's tokens in the corpus

  // Per-visit scratch, kept to avoid reallocating: the other workers' tokens of the block's
  // words as topic lists per row, and per-group totals during a round.
  std::vector<std::uint64_t> remote_begin_;
  std::vector<Topic> remote_topics_;
  std::vector<std::int64_t> cell_totals_;  // G × K
  std::vector<std::int32_t> doc_scratch_;  // G × K, zero between documents
  std::vector<std::int32_t> word_scratch_;  // G × K, zero between word rows
  std::vector<std::int32_t*> dense_rows_;   // per row of the visiting block: where it is walked in place, or null
  std::vector<std::int32_t> walked_counts_;  // a packed block's rows walked in place, K each
  RowPacker packer_;

  std::uint64_t phases_done_ = 0;  // the first is the initialising phase
  LdaReport sums_{};
};

template <class Topic>
TopicSampler<Topic>::TopicSampler(const LdaConfig& config, const data::Corpus& shard, const model::RowBlocks& blocks,
                     std::span<const std::uint64_t> word_tokens, std::uint32_t groups, bool reports_totals)
    : config_(config),
      K_(config.topics),
      stride_(model::padded_width(config.topics)),
      alpha_(config.alpha_value()),
      beta_(config.beta),
      vbeta_(static_cast<double>(word_tokens.size()) * config.beta),
      tokens_(shard, blocks, groups,
              replicated(config.model) ? static_cast<std::uint32_t>(config.syncs_per_epoch) : 1),
      z_(shard.tokens()),
      zw_(shard.tokens()),
      totals_(config.topics, 0),
      pending_(config.topics, 0),
      locks_(tokens_.groups()),
      reports_totals_(reports_totals),
      lg_alpha_(alpha_),
      lg_beta_(beta_),
      cell_totals_(static_cast<std::size_t>(tokens_.groups()) * config.topics, 0),
      doc_scratch_(static_cast<std::size_t>(tokens_.groups()) * config.topics, 0),
      word_scratch_(static_cast<std::size_t>(tokens_.groups()) * config.topics, 0),
      packer_(config.topics) {
  if (K_ < 1 || K_ > kMaxTopics || K_ - 1 > std::numeric_limits<Topic>::max())
    throw std::invalid_argument("topics must be in 1.." + std::to_string(kMaxTopics) + " (and fit the sampler's topic width)");
  if (word_tokens.size() != blocks.block_of.size())
    throw std::invalid_argument("word counts do not cover the blocking's words");
  for (const auto& rows : blocks.rows) {
    auto& expected = row_tokens_.emplace_back();
    for (const std::uint32_t word : rows) {
      if (word_tokens[word] > static_cast<std::uint64_t>(std::numeric_limits<std::int32_t>::max()))
        throw std::invalid_argument("word " + std::to_string(word) + " has more tokens than a count holds");
      expected.push_back(static_cast<std::int32_t>(word_tokens[word]));
    }
  }
  // Initial topics depend only on (seed, document id, position in the document), so the
  // starting state is the same however the corpus is sharded (LdaConfig::initial_topics).
  if (const auto& warm = config.warm_start; warm && !config.start) {  // a resume restores its topics
    // Folding in costs K a token and sweep: the worker's threads share it.
    ThreadArena(config.threads).execute([&] {
      oneapi::tbb::parallel_for(std::uint32_t{0}, tokens_.docs(), [&](std::uint32_t d) {
        Rng rng(stream_seed(config.seed, 0x1A17, shard.doc_ids[d]));
        const std::uint32_t begin = tokens_.doc_begin(d), end = tokens_.doc_begin(d + 1);
        std::vector<std::uint32_t> drawn(end - begin);
        warm->draw(shard.doc(d), rng, drawn);
        std::transform(drawn.begin(), drawn.end(), z_.begin() + begin, [](std::uint32_t k) { return static_cast<Topic>(k); });
      });
    });
  } else {
    const bool one_topic = starts_in_one_topic(config.initial_topics, alpha_, K_);
    for (std::uint32_t d = 0; d < tokens_.docs(); ++d) {
      Rng rng(stream_seed(config.seed, 0x1A17, shard.doc_ids[d]));
      const auto first = z_.begin() + tokens_.doc_begin(d), last = z_.begin() + tokens_.doc_begin(d + 1);
      if (one_topic)
        std::fill(first, last, static_cast<Topic>(rng.below(K_)));
      else
        std::generate(first, last, [&] { return static_cast<Topic>(rng.below(K_)); });
    }
  }
  for (const Topic k : z_) ++pending_[k];
  totals_ = pending_;
  copy_to_slots();
}

template <class Topic>
void TopicSampler<Topic>::copy_to_slots() {
  const std::uint32_t* positions = tokens_.slot_positions();
  for (std::size_t slot = 0; slot < zw_.size(); ++slot) zw_[slot] = z_[positions[slot]];
}

template <class Topic>
void TopicSampler<Topic>::make_token_state() {
  // Made at the first sweep, not with the index: by then the caller has freed the corpus's
  // words (4 bytes a token), which the layout needed, and they are never held at once. Each
  // group holds its largest cell part's: 2 · (1 + M) / G bytes a token when cells are equal.
  std::uint64_t largest = 0;
  for (std::uint32_t b = 0; b < row_tokens_.size(); ++b)
    for (std::uint32_t g = 0; g < tokens_.groups(); ++g)
      for (std::uint32_t s = 0; s < tokens_.groups(); ++s)
        for (std::uint32_t part = 0; part < tokens_.parts(); ++part)
          largest = std::max<std::uint64_t>(largest, tokens_.cell(b, g, s, part).size());
  state_stride_ = largest * token_state_stride(config_.mh_steps);
  token_state_.resize(tokens_.groups() * state_stride_);
}

template <class Topic>
void TopicSampler<Topic>::restore(std::span<const std::uint32_t> topics, std::span<const std::int64_t> totals,
                        std::uint64_t phases_done) {
  if (topics.size() != z_.size() || totals.size() != K_)
    throw std::invalid_argument("a checkpoint of " + std::to_string(topics.size()) + " token topics and " +
                                std::to_string(totals.size()) + " totals for a worker of " + std::to_string(z_.size()) +
                                " tokens and " + std::to_string(K_) + " topics");
  for (std::size_t p = 0; p < z_.size(); ++p) {
    if (topics[p] >= K_) throw std::invalid_argument("a checkpoint's token topic " + std::to_string(topics[p]) + " is not below K");
    z_[p] = static_cast<Topic>(topics[p]);
  }
  copy_to_slots();
  std::copy(totals.begin(), totals.end(), totals_.begin());
  std::fill(pending_.begin(), pending_.end(), 0);
  phases_done_ = phases_done;
}

template <class Topic>
void TopicSampler<Topic>::train(model::Block& block, const rotation::Visit& visit) {
  if (phases_done_ == 0)
    add_initial_topics(block);
  else
    sweep(block, 0);
  sync_totals();
  // The block's last visit of the phase: its counts are final for this phase. After a sweep
  // they are the other workers' topic lists and this worker's tokens, so the sum is taken over
  // those, not over the V × K counts.
  if (visit.next != rotation::Visit::kKeep) return;
  sums_.log_likelihood += phases_done_ == 0 ? word_loglik(block) : swept_word_loglik(block);
  if (final_block_observer_) final_block_observer_(block);
}

template <class Topic>
void TopicSampler<Topic>::evaluate(const model::Block&, const rotation::Visit&) {
  throw std::logic_error("LDA has no evaluation phase: the log-likelihood comes with every training phase");
}

// A visiting block comes from a peer. Every row's total must be its word's tokens in the
// corpus, since sampling only moves tokens between topics; while the initialising phase builds
// the counts, at most that less this worker's own tokens, which it is about to add. Then every
// total the kernel sizes from a block is bounded by the corpus, and no count can overflow. The
// counts are checked where they are first read anyway (add_initial_topics, sweep), not in a pass of
// their own; a packed block's form (BlockRows) as its view is made.
template <class Topic>
const std::vector<std::int32_t>& TopicSampler<Topic>::row_tokens(const model::Block& block) const {
  if (!block.packed() && block.stride() != stride_) throw std::invalid_argument("word-topic block of another topic count");
  if (block.id() >= row_tokens_.size())
    throw std::invalid_argument("word-topic block " + std::to_string(block.id()) + " is not one of the plan's");
  const auto& expected = row_tokens_[block.id()];
  if (block.rows() != expected.size())
    throw std::invalid_argument("word-topic block of " + std::to_string(block.rows()) + " rows; the plan has " +
                                std::to_string(expected.size()));
  return expected;
}

namespace {

[[noreturn]] void bad_total(std::size_t row, std::int64_t total, std::int32_t expected, const std::string& more) {
  throw std::invalid_argument("word-topic row " + std::to_string(row) + " holds " + std::to_string(total) +
                              " tokens; its word has " + std::to_string(expected) + " in the corpus" + more);
}

[[noreturn]] void negative_count(std::size_t row, std::uint32_t k, std::int32_t n) {
  throw std::invalid_argument("word-topic row " + std::to_string(row) + " " + count_fault(n, k));
}

}  // namespace

template <class Topic>
std::int64_t TopicSampler<Topic>::row_total(const BlockRows& rows, std::size_t r) const {
  std::int64_t total = 0;
  rows.for_each(r, [&](std::uint32_t k, std::int32_t n) {
    if (n < 0) negative_count(r, k, n);
    total += n;
  });
  return total;
}

template <class Topic>
void TopicSampler<Topic>::check_counts(const model::Block& block) const {
  const auto& expected = row_tokens(block);
  const BlockRows rows(block, K_);
  for (std::size_t r = 0; r < expected.size(); ++r)
    if (const std::int64_t total = row_total(rows, r); total != expected[r]) bad_total(r, total, expected[r], "");
}

template <class Topic>
void TopicSampler<Topic>::add_initial_topics(model::Block& block) {
  const auto& expected = row_tokens(block);
  const BlockRows rows(block, K_);
  const std::uint32_t* slots = tokens_.rows(block.id());
  for (std::size_t r = 0; r < expected.size() && !blocks_trusted_; ++r) {
    const std::int64_t total = row_total(rows, r);
    const std::int64_t local = slots[r + 1] - slots[r];
    if (total + local > expected[r])
      bad_total(r, total, expected[r], ", " + std::to_string(local) + " of them still to add here");
  }
  if (block.packed()) {
    block.replace_storage(packer_.pack(expected.size(), [&](std::size_t r, auto add) {
      rows.for_each(r, add);
      for (std::uint32_t slot = slots[r]; slot < slots[r + 1]; ++slot) add(zw_[slot], 1);
    }));
    return;
  }
  std::int32_t* counts = block.counts();
  const std::uint32_t G = tokens_.groups();
  rotation::diagonal_sweep(G, locks_, [&](std::uint32_t g, std::uint32_t s) {
    const auto [first_row, last_row] = tokens_.sub_rows(block.id(), s);
    for (std::uint32_t r = first_row; r < last_row; ++r)
      for (std::uint32_t part = 0; part < tokens_.parts(); ++part) {
        const auto [first, last] = tokens_.row_slots(block.id(), r, g, part);
        for (std::uint32_t slot = first; slot < last; ++slot) ++counts[r * stride_ + zw_[slot]];
      }
  });
}

template <class Topic>
void TopicSampler<Topic>::take_in_rows(model::Block& block) {
  const auto& expected = row_tokens(block);
  const BlockRows view(block, K_);
  const std::size_t rows = block.rows();
  // The other workers' share of each row: the block's counts less this worker's tokens, as
  // lists of topics. First, on T threads, each row is checked: its total must be its word's
  // tokens in the corpus, no count negative, and no topic's count below this worker's tokens of
  // it (else the others' share would be negative and the lists overrun their row's run). As
  // the counts are then not negative, that last holds exactly when the row's counts, each
  // capped at this worker's tokens of its topic, sum to this worker's tokens: a row costs one
  // walk of its non-zero counts and two of its local tokens; no copy. Then the lengths'
  // running sum, and the lists of the rows that have any.
  const std::uint32_t* slots = tokens_.rows(block.id());
  remote_begin_.assign(rows + 1, 0);
  std::atomic<std::size_t> first_bad{rows};
  if (blocks_trusted_) {
    // Made and kept by this process's own workers: every row holds its word's tokens, so the
    // others' share is what this worker does not hold, and the check is not needed.
    for (std::size_t r = 0; r < rows; ++r) remote_begin_[r + 1] = static_cast<std::uint64_t>(expected[r] - (slots[r + 1] - slots[r]));
  } else oneapi::tbb::parallel_for(
      oneapi::tbb::blocked_range<std::size_t>(0, rows, 256), [&](const oneapi::tbb::blocked_range<std::size_t>& range) {
        std::vector<std::int32_t> mine(K_, 0);
        for (std::size_t r = range.begin(); r != range.end(); ++r) {
          const std::int64_t local = slots[r + 1] - slots[r];
          for (std::uint32_t i = slots[r]; i < slots[r + 1]; ++i) ++mine[zw_[i]];
          std::int64_t total = 0, covered = 0;
          std::int32_t lowest = 0;
          view.for_each(r, [&](std::uint32_t k, std::int32_t n) {
            total += n;
            lowest = std::min(lowest, n);
            covered += std::min(n, mine[k]);
          });
          for (std::uint32_t i = slots[r]; i < slots[r + 1]; ++i) mine[zw_[i]] = 0;
          if (total != expected[r] || lowest < 0 || covered != local) {
            // The first bad row is named, whichever thread finds it.
            std::size_t seen = first_bad.load();
            while (r < seen && !first_bad.compare_exchange_weak(seen, r)) {
            }
            continue;
          }
          remote_begin_[r + 1] = static_cast<std::uint64_t>(total - local);
        }
      });
  if (const std::size_t r = first_bad; r < rows) {
    std::int64_t total = 0;
    view.for_each(r, [&](std::uint32_t, std::int32_t n) { total += n; });
    if (total != expected[r]) bad_total(r, total, expected[r], "");
    throw std::invalid_argument("word-topic row " + std::to_string(r) +
                                " counts fewer tokens of a topic than this worker holds in it");
  }
  for (std::size_t r = 0; r < rows; ++r) remote_begin_[r + 1] += remote_begin_[r];
  remote_topics_.resize(remote_begin_[rows]);  // at most the corpus's tokens, by the totals
  // Rows of more than K/4 tokens are walked in place (sample_word_major): a dense block's own
  // rows, or dense copies of a packed block's, which take at most 16 bytes a token of the block.
  dense_rows_.assign(rows, nullptr);
  std::size_t walked = 0;
  for (std::size_t r = 0; r < rows; ++r) walked += walked_in_place(expected[r]) ? 1 : 0;
  if (!block.packed()) {
    for (std::size_t r = 0; r < rows; ++r) dense_rows_[r] = block.counts() + r * stride_;
  } else {
    walked_counts_.assign(walked * K_, 0);
    for (std::size_t r = 0, next = 0; r < rows; ++r)
      if (walked_in_place(expected[r])) dense_rows_[r] = walked_counts_.data() + (next++) * K_;
  }
  oneapi::tbb::parallel_for(
      oneapi::tbb::blocked_range<std::size_t>(0, rows, 256), [&](const oneapi::tbb::blocked_range<std::size_t>& range) {
        std::vector<std::int32_t> mine(K_, 0);
        for (std::size_t r = range.begin(); r != range.end(); ++r) {
          if (block.packed() && dense_rows_[r] != nullptr)
            view.for_each(r, [&](std::uint32_t k, std::int32_t n) { dense_rows_[r][k] = n; });
          if (remote_begin_[r + 1] == remote_begin_[r]) continue;
          for (std::uint32_t i = slots[r]; i < slots[r + 1]; ++i) ++mine[zw_[i]];
          Topic* out = remote_topics_.data() + remote_begin_[r];
          view.for_each(r, [&](std::uint32_t k, std::int32_t n) { out = std::fill_n(out, n - mine[k], static_cast<Topic>(k)); });
          for (std::uint32_t i = slots[r]; i < slots[r + 1]; ++i) mine[zw_[i]] = 0;
        }
      });
}

template <class Topic>
void TopicSampler<Topic>::pack_swept_rows(model::Block& block) {
  if (!block.packed()) return;  // a dense block's rows were kept up to date in place
  const std::uint32_t* slots = tokens_.rows(block.id());
  block.replace_storage(packer_.pack(block.rows(), [&](std::size_t r, auto add) {
    if (const std::int32_t* row = dense_rows_[r]) {
      for (std::uint32_t k = 0; k < K_; ++k)
        if (row[k] != 0) add(k, row[k]);
      return;
    }
    for (std::uint64_t i = remote_begin_[r]; i < remote_begin_[r + 1]; ++i) add(remote_topics_[i], 1);
    for (std::uint32_t slot = slots[r]; slot < slots[r + 1]; ++slot) add(zw_[slot], 1);
  }));
  std::vector<std::int32_t>().swap(walked_counts_);
}

template <class Topic>
void TopicSampler<Topic>::sweep(model::Block& block, std::uint32_t part) {
  if (part >= tokens_.parts())
    throw std::logic_error("document part " + std::to_string(part) + " of " + std::to_string(tokens_.parts()));
  if (token_state_.empty() && !zw_.empty()) make_token_state();
  take_in_rows(block);
  // A packed block's counts now live in the lists and dense copies take_in_rows made, until
  // pack_swept_rows packs them anew: its words go now rather than after, so that they are not
  // held beside the new ones at the packing's peak.
  if (block.packed()) (void)block.release_storage();

  const Priors priors{K_, alpha_, beta_, vbeta_, config_.mh_steps};
  const std::uint32_t G = tokens_.groups();
  double sampled = 0;
  for (std::uint32_t g = 0; g < G; ++g)
    for (std::uint32_t s = 0; s < G; ++s) sampled += static_cast<double>(tokens_.cell(block.id(), g, s, part).size());
  // Part 0 draws the streams the rotation (one part) always has.
  const std::uint64_t stream = phases_done_ + (std::uint64_t{part} << 40);
  auto cell_view = [&](std::uint32_t g) { return cell_totals_.data() + static_cast<std::size_t>(g) * K_; };
  for (std::uint32_t g = 0; g < G; ++g) std::copy(totals_.begin(), totals_.end(), cell_view(g));
  rotation::diagonal_sweep(
      G, locks_,
      [&](std::uint32_t g, std::uint32_t s) {
        const CellState<Topic> state{tokens_.cell(block.id(), g, s, part),
                              &tokens_,
                              block.id(),
                              g,
                              part,
                              tokens_.cell_rows(block.id(), g, s, part),
                              z_.data(),
                              zw_.data(),
                              token_state_.data() + g * state_stride_,
                              doc_scratch_.data() + static_cast<std::size_t>(g) * K_,
                              word_scratch_.data() + static_cast<std::size_t>(g) * K_,
                              dense_rows_.data(),
                              remote_begin_.data(),
                              remote_topics_.data(),
                              cell_view(g)};
        Rng rng(stream_seed(config_.seed, stream, block.id(), g, s));
        draw_word_proposals(state, priors, rng);
        if (K_ >= kPrefetchTopics) {
          sample_doc_major<true>(state, priors, rng);
          sample_word_major<true>(state, priors, rng);
        } else {
          sample_doc_major<false>(state, priors, rng);
          sample_word_major<false>(state, priors, rng);
        }
      },
      [&](std::uint32_t) {
        // Fold every cell's change to the totals in group order, then restart the views.
        std::vector<std::int64_t> next = totals_;
        for (std::uint32_t g = 0; g < G; ++g) {
          const std::int64_t* view = cell_view(g);
          for (std::uint32_t k = 0; k < K_; ++k) next[k] += view[k] - totals_[k];
        }
        for (std::uint32_t k = 0; k < K_; ++k) pending_[k] += next[k] - totals_[k];
        totals_ = std::move(next);
        for (std::uint32_t g = 0; g < G; ++g) std::copy(totals_.begin(), totals_.end(), cell_view(g));
      });
  pack_swept_rows(block);
  sums_.tokens_sampled += sampled;
}

template <class Topic>
void TopicSampler<Topic>::sync_totals() {
  if (workers_ == nullptr) throw std::logic_error("LDA kernel used without a communicator");
  std::vector<std::int64_t> sum = pending_;
  workers_->allreduce_sum(std::span<std::int64_t>(sum));
  for (std::uint32_t k = 0; k < K_; ++k) totals_[k] += sum[k] - pending_[k];
  std::fill(pending_.begin(), pending_.end(), 0);
}

template <class Topic>
void TopicSampler<Topic>::add_word_loglik(const model::Block& block) {
  sums_.log_likelihood += word_loglik(block);
  if (final_block_observer_) final_block_observer_(block);
}

template <class Topic>
double TopicSampler<Topic>::word_loglik(const model::Block& block) const {
  const BlockRows rows(block, K_);
  const double base = lg_beta_(0);
  return ordered_parallel_sum(block.rows(), 256, [&](std::size_t lo, std::size_t hi) {
    double sum = 0;
    for (std::size_t r = lo; r < hi; ++r) {
      // Σ over the row's non-zero counts, in topic order, of lg(n) − lg(0).
      double row = 0;
      rows.for_each(r, [&](std::uint32_t, std::int32_t n) { row += lg_beta_(n) - base; });
      sum += row;
    }
    return sum;
  });
}

template <class Topic>
double TopicSampler<Topic>::swept_word_loglik(const model::Block& block) const {
  const std::uint32_t* slots = tokens_.rows(block.id());
  return ordered_parallel_sum(block.rows(), 256, [&](std::size_t lo, std::size_t hi) {
    double sum = 0;
    const double base = lg_beta_(0);
    std::vector<std::int32_t> n(K_, 0);
    std::vector<Topic> seen;
    TopicOrder order(K_);
    for (std::size_t r = lo; r < hi; ++r) {
      seen.clear();
      const auto count = [&](Topic k) {
        if (n[k]++ == 0) seen.push_back(k);
      };
      for (std::uint64_t i = remote_begin_[r]; i < remote_begin_[r + 1]; ++i) count(remote_topics_[i]);
      for (std::uint32_t i = slots[r]; i < slots[r + 1]; ++i) count(zw_[i]);
      // In topic order and row by row, as word_loglik adds a row's non-zero counts: the same bits.
      order.sort(std::span(seen));
      double row = 0;
      for (const Topic k : seen) {
        row += lg_beta_(n[k]) - base;
        n[k] = 0;
      }
      sum += row;
    }
    return sum;
  });
}

template <class Topic>
double TopicSampler<Topic>::doc_loglik() const {
  const double kalpha = K_ * alpha_;
  const double lg_kalpha = LogGamma::exact(kalpha);
  return ordered_parallel_sum(tokens_.docs(), 1024, [&](std::size_t lo, std::size_t hi) {
    double sum = 0;
    std::vector<std::int32_t> row(K_, 0);
    for (std::size_t d = lo; d < hi; ++d) {
      const std::uint32_t db = tokens_.doc_begin(static_cast<std::uint32_t>(d));
      const std::uint32_t de = tokens_.doc_begin(static_cast<std::uint32_t>(d + 1));
      for (std::uint32_t i = db; i < de; ++i) ++row[z_[i]];
      // Σ over the document's topics (each once) of lg(n_dk) − lg(0).
      for (std::uint32_t i = db; i < de; ++i)
        if (const std::int32_t n = row[z_[i]]; n != 0) {
          sum += lg_alpha_(n) - lg_alpha_(0);
          row[z_[i]] = 0;
        }
      sum += lg_kalpha - LogGamma::exact((de - db) + kalpha);
    }
    return sum;
  });
}

template <class Topic>
TopicCountRows TopicSampler<Topic>::take_doc_topic_rows() {
  tokens_.release_index();
  // Swapped with empty ones: assigning {} would keep the capacity.
  std::vector<Topic>().swap(zw_);
  std::vector<Topic>().swap(token_state_);
  std::vector<Topic>().swap(remote_topics_);
  std::vector<std::uint64_t>().swap(remote_begin_);
  std::vector<std::int32_t*>().swap(dense_rows_);
  return doc_topic_rows();
}

template <class Topic>
TopicCountRows TopicSampler<Topic>::doc_topic_rows() const {
  TopicCountRows rows(K_);
  std::vector<std::int32_t> scratch(K_, 0);
  for (std::uint32_t d = 0; d < tokens_.docs(); ++d) {
    const std::uint32_t begin = tokens_.doc_begin(d), end = tokens_.doc_begin(d + 1);
    rows.add_from_topics(std::span(z_).subspan(begin, end - begin), scratch);
  }
  return rows;
}

template <class Topic>
double TopicSampler<Topic>::totals_loglik() const {
  const double lg_vbeta = LogGamma::exact(vbeta_);
  double sum = 0;
  for (std::uint32_t k = 0; k < K_; ++k) sum += lg_vbeta - LogGamma::exact(static_cast<double>(totals_[k]) + vbeta_);
  return sum;
}

template <class Topic>
rotation::PhaseSums TopicSampler<Topic>::take_phase_sums(rotation::PhaseKind) {
  sums_.log_likelihood += doc_loglik() + (reports_totals_ ? totals_loglik() : 0.0);
  ++phases_done_;
  const auto out = rotation::to_sums(sums_);
  sums_ = {};
  return out;
}

std::unique_ptr<LdaKernel> LdaKernel::make(const LdaConfig& config, const data::Corpus& shard,
                                           const model::RowBlocks& blocks, std::span<const std::uint64_t> word_tokens,
                                           std::uint32_t groups, bool reports_totals) {
  if (config.topics <= std::numeric_limits<std::uint16_t>::max())
    return std::make_unique<TopicSampler<std::uint16_t>>(config, shard, blocks, word_tokens, groups, reports_totals);
  return std::make_unique<TopicSampler<std::uint32_t>>(config, shard, blocks, word_tokens, groups, reports_totals);
}

}  // namespace gyre::lda
