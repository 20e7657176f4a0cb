// apps/lda/lda_kernel.cpp — Metropolis-Hastings Gibbs sweeps over a visiting word-topic block on T threads.
#include "lda/lda_kernel.hpp"

#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/parallel_for.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>

#include "lda/random.hpp"

namespace gyre::lda {
namespace {

// What one cell's sweep reads and writes; every pointer is owned by the cell for the round.
struct CellState {
  const TokenRef* first;
  const TokenRef* last;
  std::uint16_t* z;                    // topic per position (the cell's documents only are written)
  std::uint16_t* zw;                   // topic per word-major slot (the cell's rows only are written)
  const WorkerTokens* tokens;
  const std::uint32_t* rows;           // the block's rows' slot ranges
  std::int32_t* doc_topic;             // docs × K
  std::int32_t* word_topic;            // block rows × stride (the cell's rows only are written)
  const std::uint64_t* remote_begin;   // per row
  const std::uint16_t* remote_topics;  // per row: the other workers' tokens' topics, as the block arrived
  std::int64_t* totals;                // this cell's view of n_k
};

struct Priors {
  std::uint32_t K;
  std::size_t stride;
  double alpha, beta, vbeta;
  int mh_steps;
};

// Both proposals draw the topic of a random token: of the same word (anywhere: the other
// workers' tokens as the block arrived, which nobody changes while we hold it, and this
// worker's tokens as they are now) or of the same document. A token's current topic s0 is
// still in both pools, so q_w(k) ∝ n_wk¬ + [k = s0] + β and q_d(k) ∝ n_dk¬ + [k = s0] + α, with
// the prior's share drawn uniformly; the acceptance ratios below are those of these exact
// proposals against the conditional (n_dk¬ + α)(n_wk¬ + β)/(n_k¬ + Vβ).
void sweep_cell(const CellState& c, const Priors& p, Rng& rng) {
  const double kalpha = p.K * p.alpha;
  const double kbeta = p.K * p.beta;
  for (const TokenRef* t = c.first; t != c.last; ++t) {
    std::int32_t* nd = c.doc_topic + static_cast<std::size_t>(t->doc) * p.K;
    std::int32_t* nw = c.word_topic + static_cast<std::size_t>(t->row) * p.stride;
    const std::uint32_t s0 = c.z[t->pos];
    // Counts without this token (the "¬" counts of the conditional).
    --nd[s0];
    --nw[s0];
    --c.totals[s0];

    const std::uint64_t rb = c.remote_begin[t->row];
    const double n_remote = static_cast<double>(c.remote_begin[t->row + 1] - rb);
    const std::uint32_t lb = c.rows[t->row];
    const double n_w = n_remote + static_cast<double>(c.rows[t->row + 1] - lb);
    const std::uint32_t db = c.tokens->doc_begin(t->doc);
    const double len_d = static_cast<double>(c.tokens->doc_begin(t->doc + 1) - db);

    std::uint32_t s = s0;
    auto accept = [&](std::uint32_t t_new, double q_s, double q_t) {
      const double num = (nd[t_new] + p.alpha) * (nw[t_new] + p.beta) * (static_cast<double>(c.totals[s]) + p.vbeta) * q_s;
      const double den = (nd[s] + p.alpha) * (nw[s] + p.beta) * (static_cast<double>(c.totals[t_new]) + p.vbeta) * q_t;
      if (rng.uniform() * den < num) s = t_new;
    };
    for (int step = 0; step < p.mh_steps; ++step) {
      {
        const double u = rng.uniform() * (n_w + kbeta);
        std::uint32_t t_new;
        if (u < n_remote)
          t_new = c.remote_topics[rb + static_cast<std::uint64_t>(u)];
        else if (u < n_w)
          t_new = c.zw[lb + static_cast<std::uint32_t>(u - n_remote)];
        else
          t_new = std::min(p.K - 1, static_cast<std::uint32_t>((u - n_w) / p.beta));
        if (t_new != s)
          accept(t_new, nw[s] + p.beta + (s == s0 ? 1.0 : 0.0), nw[t_new] + p.beta + (t_new == s0 ? 1.0 : 0.0));
      }
      {
        const double u = rng.uniform() * (len_d + kalpha);
        const std::uint32_t t_new = u < len_d ? c.z[db + static_cast<std::uint32_t>(u)]
                                              : std::min(p.K - 1, static_cast<std::uint32_t>((u - len_d) / p.alpha));
        if (t_new != s)
          accept(t_new, nd[s] + p.alpha + (s == s0 ? 1.0 : 0.0), nd[t_new] + p.alpha + (t_new == s0 ? 1.0 : 0.0));
      }
    }
    c.z[t->pos] = static_cast<std::uint16_t>(s);
    c.zw[t->slot] = static_cast<std::uint16_t>(s);
    ++nd[s];
    ++nw[s];
    ++c.totals[s];
  }
}

// Σ over the non-zero entries of lg(n) − lg(0), over [first, last) of a count array.
double nonzero_lgamma_sum(const std::int32_t* first, const std::int32_t* last, const LogGamma& lg) {
  double sum = 0;
  const double base = lg(0);
  for (const std::int32_t* c = first; c != last; ++c)
    if (*c != 0) sum += lg(*c) - base;
  return sum;
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

LdaKernel::LdaKernel(const LdaConfig& config, const data::Corpus& shard, const model::RowBlocks& blocks,
                     std::span<const std::uint64_t> word_tokens, std::uint32_t groups, bool reports_totals)
    : config_(config),
      K_(config.topics),
      stride_(model::padded_width(config.topics)),
      alpha_(config.alpha_value()),
      beta_(config.beta),
      vbeta_(static_cast<double>(word_tokens.size()) * config.beta),
      tokens_(shard, blocks, groups,
              config.model == ComputationModel::kAllreduce ? static_cast<std::uint32_t>(config.syncs_per_epoch) : 1),
      z_(shard.tokens()),
      zw_(shard.tokens()),
      doc_topic_(static_cast<std::size_t>(shard.docs()) * config.topics, 0),
      totals_(config.topics, 0),
      pending_(config.topics, 0),
      locks_(tokens_.groups()),
      reports_totals_(reports_totals),
      lg_alpha_(alpha_),
      lg_beta_(beta_),
      cell_totals_(static_cast<std::size_t>(tokens_.groups()) * config.topics, 0) {
  if (K_ < 1 || K_ > std::numeric_limits<std::uint16_t>::max())
    throw std::invalid_argument("topics must be in 1..65535");
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
  // starting state is the same however the corpus is sharded.
  for (std::uint32_t d = 0; d < tokens_.docs(); ++d) {
    Rng rng(stream_seed(config.seed, 0x1A17, shard.doc_ids[d]));
    for (std::uint32_t p = tokens_.doc_begin(d); p < tokens_.doc_begin(d + 1); ++p) {
      const std::uint32_t k = rng.below(K_);
      z_[p] = static_cast<std::uint16_t>(k);
      ++doc_topic_[static_cast<std::size_t>(d) * K_ + k];
      ++pending_[k];
    }
  }
  totals_ = pending_;
  for (std::uint32_t b = 0; b < blocks.rows.size(); ++b)
    for (const TokenRef& t : tokens_.block(b)) zw_[t.slot] = z_[t.pos];
}

void LdaKernel::restore(std::span<const std::uint16_t> topics, std::span<const std::int64_t> totals,
                        std::uint64_t phases_done) {
  if (topics.size() != z_.size() || totals.size() != K_)
    throw std::invalid_argument("a checkpoint of " + std::to_string(topics.size()) + " token topics and " +
                                std::to_string(totals.size()) + " totals for a worker of " + std::to_string(z_.size()) +
                                " tokens and " + std::to_string(K_) + " topics");
  std::fill(doc_topic_.begin(), doc_topic_.end(), 0);
  for (std::uint32_t d = 0; d < tokens_.docs(); ++d)
    for (std::uint32_t p = tokens_.doc_begin(d); p < tokens_.doc_begin(d + 1); ++p) {
      if (topics[p] >= K_) throw std::invalid_argument("a checkpoint's token topic " + std::to_string(topics[p]) + " is not below K");
      z_[p] = topics[p];
      ++doc_topic_[static_cast<std::size_t>(d) * K_ + topics[p]];
    }
  for (std::uint32_t b = 0; b < row_tokens_.size(); ++b)
    for (const TokenRef& t : tokens_.block(b)) zw_[t.slot] = z_[t.pos];
  std::copy(totals.begin(), totals.end(), totals_.begin());
  std::fill(pending_.begin(), pending_.end(), 0);
  phases_done_ = phases_done;
}

void LdaKernel::train(model::Block& block, const scheduler::Visit& visit) {
  if (phases_done_ == 0)
    add_initial_topics(block);
  else
    sweep(block, 0);
  sync_totals();
  // The block's last visit of the phase: its counts are final for this phase.
  if (visit.next == scheduler::Visit::kKeep) add_word_loglik(block);
}

void LdaKernel::evaluate(const model::Block&, const scheduler::Visit&) {
  throw std::logic_error("LDA has no evaluation phase: the log-likelihood comes with every training phase");
}

// A visiting block comes from a peer. Every row's total must be its word's tokens in the
// corpus, since sampling only moves tokens between topics; while the initialising phase builds
// the counts, at most that less this worker's own tokens, which it is about to add. Then every
// total the kernel sizes from a block is bounded by the corpus, and no count can overflow. The
// counts are checked where they are first read anyway (add_initial_topics, sweep), not in a pass of
// their own.
const std::vector<std::int32_t>& LdaKernel::row_tokens(const model::Block& block) const {
  if (block.stride() != stride_) throw std::invalid_argument("word-topic block of another topic count");
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

}  // namespace

std::int64_t LdaKernel::row_total(const std::int32_t* row, std::size_t r) const {
  std::int64_t total = 0;
  for (std::uint32_t k = 0; k < K_; ++k) {
    if (row[k] < 0)
      throw std::invalid_argument("word-topic row " + std::to_string(r) + " has count " + std::to_string(row[k]) +
                                  " in topic " + std::to_string(k));
    total += row[k];
  }
  return total;
}

void LdaKernel::check_counts(const model::Block& block) const {
  const auto& expected = row_tokens(block);
  for (std::size_t r = 0; r < expected.size(); ++r)
    if (const std::int64_t total = row_total(block.counts() + r * stride_, r); total != expected[r])
      bad_total(r, total, expected[r], "");
}

void LdaKernel::add_initial_topics(model::Block& block) {
  const auto& expected = row_tokens(block);
  std::int32_t* counts = block.counts();
  const std::uint32_t* slots = tokens_.rows(block.id());
  for (std::size_t r = 0; r < expected.size(); ++r) {
    const std::int64_t total = row_total(counts + r * stride_, r);
    const std::int64_t local = slots[r + 1] - slots[r];
    if (total + local > expected[r])
      bad_total(r, total, expected[r], ", " + std::to_string(local) + " of them still to add here");
  }
  const std::uint32_t G = tokens_.groups();
  pipeline::diagonal_sweep(G, locks_, [&](std::uint32_t g, std::uint32_t s) {
    for (const TokenRef& t : tokens_.cell(block.id(), g, s)) ++counts[t.row * stride_ + z_[t.pos]];
  });
}

void LdaKernel::sweep(model::Block& block, std::uint32_t part) {
  if (part >= tokens_.parts())
    throw std::logic_error("document part " + std::to_string(part) + " of " + std::to_string(tokens_.parts()));
  const auto& expected = row_tokens(block);
  const std::size_t rows = block.rows();
  std::int32_t* counts = block.counts();
  // The other workers' share of each row: the block's counts less this worker's tokens, as
  // lists of topics. Only lengths first (a row's total less its local tokens), then each row
  // in a scratch row of K counts per chunk of rows.
  const std::uint32_t* slots = tokens_.rows(block.id());
  remote_begin_.assign(rows + 1, 0);
  for (std::size_t r = 0; r < rows; ++r) {
    const std::int32_t* row = counts + r * stride_;
    const std::int64_t total = std::accumulate(row, row + K_, std::int64_t{0});
    if (total != expected[r]) bad_total(r, total, expected[r], "");
    remote_begin_[r + 1] = remote_begin_[r] + static_cast<std::uint64_t>(total - (slots[r + 1] - slots[r]));
  }
  remote_topics_.resize(remote_begin_[rows]);  // at most the corpus's tokens, by the totals
  // A row whose topic count is below this worker's own tokens of that topic (a negative count
  // among them) would make the others' share negative, and the lists overrun their row's run:
  // such a row is refused.
  std::atomic<std::size_t> short_row{rows};
  oneapi::tbb::parallel_for(oneapi::tbb::blocked_range<std::size_t>(0, rows, 256),
                            [&](const oneapi::tbb::blocked_range<std::size_t>& range) {
                              std::vector<std::int32_t> remote(K_);
                              for (std::size_t r = range.begin(); r != range.end(); ++r) {
                                std::copy_n(counts + r * stride_, K_, remote.begin());
                                for (std::uint32_t i = slots[r]; i < slots[r + 1]; ++i) --remote[zw_[i]];
                                if (std::any_of(remote.begin(), remote.end(), [](std::int32_t n) { return n < 0; })) {
                                  short_row = r;
                                  continue;
                                }
                                std::uint16_t* out = remote_topics_.data() + remote_begin_[r];
                                for (std::uint32_t k = 0; k < K_; ++k)
                                  out = std::fill_n(out, remote[k], static_cast<std::uint16_t>(k));
                              }
                            });
  if (const std::size_t r = short_row; r < rows)
    throw std::invalid_argument("word-topic row " + std::to_string(r) +
                                " counts fewer tokens of a topic than this worker holds in it");

  const Priors priors{K_, stride_, alpha_, beta_, vbeta_, config_.mh_steps};
  const std::uint32_t G = tokens_.groups();
  double sampled = 0;
  for (std::uint32_t g = 0; g < G; ++g)
    for (std::uint32_t s = 0; s < G; ++s) sampled += static_cast<double>(tokens_.cell(block.id(), g, s, part).size());
  // Part 0 draws the streams the rotation (one part) always has.
  const std::uint64_t stream = phases_done_ + (std::uint64_t{part} << 40);
  auto cell_view = [&](std::uint32_t g) { return cell_totals_.data() + static_cast<std::size_t>(g) * K_; };
  for (std::uint32_t g = 0; g < G; ++g) std::copy(totals_.begin(), totals_.end(), cell_view(g));
  pipeline::diagonal_sweep(
      G, locks_,
      [&](std::uint32_t g, std::uint32_t s) {
        const auto cell = tokens_.cell(block.id(), g, s, part);
        const CellState state{cell.data(),          cell.data() + cell.size(), z_.data(),
                              zw_.data(),           &tokens_,                  tokens_.rows(block.id()),
                              doc_topic_.data(),    counts,                    remote_begin_.data(),
                              remote_topics_.data(), cell_view(g)};
        Rng rng(stream_seed(config_.seed, stream, block.id(), g, s));
        sweep_cell(state, priors, rng);
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
  sums_.tokens_sampled += sampled;
}

void LdaKernel::sync_totals() {
  if (workers_ == nullptr) throw std::logic_error("LDA kernel used without a communicator");
  std::vector<std::int64_t> sum = pending_;
  workers_->allreduce_sum(std::span<std::int64_t>(sum));
  for (std::uint32_t k = 0; k < K_; ++k) totals_[k] += sum[k] - pending_[k];
  std::fill(pending_.begin(), pending_.end(), 0);
}

void LdaKernel::add_word_loglik(const model::Block& block) {
  sums_.log_likelihood += word_loglik(block);
  if (final_block_observer_) final_block_observer_(block);
}

double LdaKernel::word_loglik(const model::Block& block) const {
  const std::int32_t* counts = block.counts();
  const std::size_t stride = stride_;
  return ordered_parallel_sum(block.rows(), 256, [&](std::size_t lo, std::size_t hi) {
    double sum = 0;
    for (std::size_t r = lo; r < hi; ++r) sum += nonzero_lgamma_sum(counts + r * stride, counts + r * stride + K_, lg_beta_);
    return sum;
  });
}

double LdaKernel::doc_loglik() const {
  const double kalpha = K_ * alpha_;
  const double lg_kalpha = LogGamma::exact(kalpha);
  return ordered_parallel_sum(tokens_.docs(), 1024, [&](std::size_t lo, std::size_t hi) {
    double sum = 0;
    for (std::size_t d = lo; d < hi; ++d) {
      const std::int32_t* row = doc_topic_.data() + d * K_;
      const auto len = tokens_.doc_begin(static_cast<std::uint32_t>(d + 1)) - tokens_.doc_begin(static_cast<std::uint32_t>(d));
      sum += lg_kalpha - LogGamma::exact(len + kalpha) + nonzero_lgamma_sum(row, row + K_, lg_alpha_);
    }
    return sum;
  });
}

double LdaKernel::totals_loglik() const {
  const double lg_vbeta = LogGamma::exact(vbeta_);
  double sum = 0;
  for (std::uint32_t k = 0; k < K_; ++k) sum += lg_vbeta - LogGamma::exact(static_cast<double>(totals_[k]) + vbeta_);
  return sum;
}

scheduler::PhaseSums LdaKernel::take_phase_sums(scheduler::PhaseKind) {
  sums_.log_likelihood += doc_loglik() + (reports_totals_ ? totals_loglik() : 0.0);
  ++phases_done_;
  const auto out = scheduler::to_sums(sums_);
  sums_ = {};
  return out;
}

}  // namespace gyre::lda
