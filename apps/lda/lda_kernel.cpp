// apps/lda/lda_kernel.cpp — Metropolis-Hastings Gibbs sweeps over a visiting word-topic block on T threads.
#include "lda/lda_kernel.hpp"

#include <oneapi/tbb/parallel_for.h>

#include <algorithm>
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
  std::uint16_t* z;                      // topic per position (the cell's documents only are written)
  const WorkerTokens* tokens;
  std::int32_t* doc_topic;               // docs × K
  std::int32_t* word_topic;              // block rows × stride (the cell's rows only are written)
  const std::int32_t* snapshot;          // the block as it arrived
  const std::uint64_t* proposal_begin;   // per row
  const std::uint16_t* proposal_topics;  // per row: each topic repeated by its count in the snapshot
  std::int64_t* totals;                  // this cell's view of n_k
};

struct Priors {
  std::uint32_t K;
  std::size_t stride;
  double alpha, beta, vbeta;
  int mh_steps;
};

void sweep_cell(const CellState& c, const Priors& p, Rng& rng) {
  const double kalpha = p.K * p.alpha;
  const double kbeta = p.K * p.beta;
  for (const TokenRef* t = c.first; t != c.last; ++t) {
    std::int32_t* nd = c.doc_topic + static_cast<std::size_t>(t->doc) * p.K;
    std::int32_t* nw = c.word_topic + static_cast<std::size_t>(t->row) * p.stride;
    const std::int32_t* nw_hat = c.snapshot + static_cast<std::size_t>(t->row) * p.stride;
    const std::uint32_t s0 = c.z[t->pos];
    // Counts without this token (the "¬i" counts of the conditional).
    --nd[s0];
    --nw[s0];
    --c.totals[s0];

    const std::uint64_t wb = c.proposal_begin[t->row];
    const double n_w_hat = static_cast<double>(c.proposal_begin[t->row + 1] - wb);
    const std::uint32_t db = c.tokens->doc_begin(t->doc);
    const double len_d = static_cast<double>(c.tokens->doc_begin(t->doc + 1) - db);

    std::uint32_t s = s0;
    for (int step = 0; step < p.mh_steps; ++step) {
      // Word proposal q(k) ∝ n̂_wk + β: a random token of the word as the block arrived, or a
      // uniform topic with the prior's share.
      {
        const double u = rng.uniform() * (n_w_hat + kbeta);
        const std::uint32_t t_new =
            u < n_w_hat ? c.proposal_topics[wb + static_cast<std::uint64_t>(u)]
                        : std::min(p.K - 1, static_cast<std::uint32_t>((u - n_w_hat) / p.beta));
        if (t_new != s) {
          const double num = (nd[t_new] + p.alpha) * (nw[t_new] + p.beta) * (static_cast<double>(c.totals[s]) + p.vbeta) *
                             (nw_hat[s] + p.beta);
          const double den = (nd[s] + p.alpha) * (nw[s] + p.beta) * (static_cast<double>(c.totals[t_new]) + p.vbeta) *
                             (nw_hat[t_new] + p.beta);
          if (rng.uniform() * den < num) s = t_new;
        }
      }
      // Doc proposal q(k) ∝ n_dk + α with this token still counted at s0: the topic of a random
      // token of the document (this one included), or a uniform topic with the prior's share.
      {
        const double u = rng.uniform() * (len_d + kalpha);
        const std::uint32_t t_new = u < len_d ? c.z[db + static_cast<std::uint32_t>(u)]
                                              : std::min(p.K - 1, static_cast<std::uint32_t>((u - len_d) / p.alpha));
        if (t_new != s) {
          const double q_s = nd[s] + p.alpha + (s == s0 ? 1.0 : 0.0);
          const double q_t = nd[t_new] + p.alpha + (t_new == s0 ? 1.0 : 0.0);
          const double num = (nd[t_new] + p.alpha) * (nw[t_new] + p.beta) * (static_cast<double>(c.totals[s]) + p.vbeta) * q_s;
          const double den = (nd[s] + p.alpha) * (nw[s] + p.beta) * (static_cast<double>(c.totals[t_new]) + p.vbeta) * q_t;
          if (rng.uniform() * den < num) s = t_new;
        }
      }
    }
    c.z[t->pos] = static_cast<std::uint16_t>(s);
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
                     std::uint32_t vocab, std::uint32_t groups, bool reports_totals)
    : config_(config),
      K_(config.topics),
      stride_(model::padded_width(config.topics)),
      alpha_(config.alpha_value()),
      beta_(config.beta),
      vbeta_(vocab * config.beta),
      tokens_(shard, blocks, groups),
      z_(shard.tokens()),
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
}

void LdaKernel::train(model::Block& block, const scheduler::Visit& visit) {
  if (block.stride() != stride_) throw std::invalid_argument("word-topic block of another topic count");
  if (phases_done_ == 0)
    initialise(block);
  else
    sample(block, visit);
  sync_totals();
  // The block's last visit of the phase: its counts are final for this phase.
  if (visit.next == scheduler::Visit::kKeep) sums_[kLogLikelihood] += word_loglik(block);
}

void LdaKernel::evaluate(const model::Block&, const scheduler::Visit&) {
  throw std::logic_error("LDA has no evaluation phase: the log-likelihood comes with every training phase");
}

void LdaKernel::initialise(model::Block& block) {
  std::int32_t* counts = block.counts();
  const std::uint32_t G = tokens_.groups();
  pipeline::diagonal_sweep(G, locks_, [&](std::uint32_t g, std::uint32_t s) {
    for (const TokenRef& t : tokens_.cell(block.id(), g, s)) ++counts[t.row * stride_ + z_[t.pos]];
  });
}

void LdaKernel::sample(model::Block& block, const scheduler::Visit& visit) {
  const std::size_t rows = block.rows();
  std::int32_t* counts = block.counts();
  snapshot_.assign(counts, counts + rows * stride_);

  // Word proposal tables: row r's topics, each repeated by its count in the snapshot.
  proposal_begin_.assign(rows + 1, 0);
  for (std::size_t r = 0; r < rows; ++r) {
    const std::int32_t* row = snapshot_.data() + r * stride_;
    std::int64_t n = 0;
    for (std::uint32_t k = 0; k < K_; ++k) n += row[k];
    proposal_begin_[r + 1] = proposal_begin_[r] + static_cast<std::uint64_t>(n);
  }
  proposal_topics_.resize(proposal_begin_[rows]);
  oneapi::tbb::parallel_for(std::size_t{0}, rows, [&](std::size_t r) {
    const std::int32_t* row = snapshot_.data() + r * stride_;
    std::uint16_t* out = proposal_topics_.data() + proposal_begin_[r];
    for (std::uint32_t k = 0; k < K_; ++k) out = std::fill_n(out, row[k], static_cast<std::uint16_t>(k));
  });

  const Priors priors{K_, stride_, alpha_, beta_, vbeta_, config_.mh_steps};
  const std::uint32_t G = tokens_.groups();
  auto cell_view = [&](std::uint32_t g) { return cell_totals_.data() + static_cast<std::size_t>(g) * K_; };
  for (std::uint32_t g = 0; g < G; ++g) std::copy(totals_.begin(), totals_.end(), cell_view(g));
  pipeline::diagonal_sweep(
      G, locks_,
      [&](std::uint32_t g, std::uint32_t s) {
        const auto cell = tokens_.cell(block.id(), g, s);
        const CellState state{cell.data(), cell.data() + cell.size(), z_.data(), &tokens_, doc_topic_.data(),
                              counts, snapshot_.data(), proposal_begin_.data(), proposal_topics_.data(), cell_view(g)};
        Rng rng(stream_seed(config_.seed, phases_done_, block.id(), g, s));
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
  sums_[kTokensSampled] += static_cast<double>(tokens_.block(visit.block).size());
}

void LdaKernel::sync_totals() {
  if (workers_ == nullptr) throw std::logic_error("LDA kernel used without a communicator");
  std::vector<std::int64_t> sum = pending_;
  workers_->allreduce_sum(std::span<std::int64_t>(sum));
  for (std::uint32_t k = 0; k < K_; ++k) totals_[k] += sum[k] - pending_[k];
  std::fill(pending_.begin(), pending_.end(), 0);
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
  sums_[kLogLikelihood] += doc_loglik() + (reports_totals_ ? totals_loglik() : 0.0);
  ++phases_done_;
  scheduler::PhaseSums out = sums_;
  sums_ = {};
  return out;
}

}  // namespace gyre::lda
