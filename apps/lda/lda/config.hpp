// apps/lda/lda/config.hpp — every knob of LDA by collapsed Gibbs sampling, with the defaults gyre-lda uses.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "app/computation_model.hpp"
#include "gyre/rotation/rotation_schedule.hpp"

namespace gyre::lda {

// How workers share the word-topic counts: Harp's four computation models.
//   kLocking    A: one copy of the counts, kept by the lock service; in each epoch a worker
//                  takes any word block it has not sampled yet that nobody holds, samples its
//                  own documents' tokens of those words, and hands it back
//   kRotation   B: word blocks travel the ring; a block has one owner at a time (the default)
//   kAllreduce  C: every worker has a replica of all counts and samples its own documents
//                  against it; syncs_per_epoch times an epoch the workers' changes are summed
//                  (exact integer sums) and every replica becomes start + sum of changes
//   kNoSync     D: every worker has a replica and samples its own documents against it;
//                  syncs_per_epoch times an epoch it pushes its changes to every peer and adds
//                  whatever changes of theirs have arrived, waiting for none (Yahoo!LDA's
//                  asynchronous merge); only as an epoch ends does it wait for them all
using app::ComputationModel;
using app::name_of;
using app::parse_computation_model;

// C and D: a replica of every word block per worker, each worker's documents in syncs_per_epoch parts.
inline bool replicated(ComputationModel model) {
  return model == ComputationModel::kAllreduce || model == ComputationModel::kNoSync;
}
inline constexpr int kMaxSyncsPerEpoch = 1024;
// The most topics a job may have: 2^20. Up to 65 535 a token's topic takes 16 bits, beyond 32
// (lda_kernel.hpp); a worker also keeps a few K-long arrays per thread, 24 MB at 2^20.
inline constexpr std::uint32_t kMaxTopics = std::uint32_t{1} << 20;

// What a resume continues from: the state after `epoch` sweeps (the initialising phase and
// `epoch` sweeps done), read from a checkpoint (lda/checkpoint.hpp).
struct LdaStart {
  int epoch = 0;
  std::vector<std::int64_t> topic_totals;             // K
  std::vector<std::vector<std::uint32_t>> block_counts;  // by block id: its rows packed (lda/word_topic_block.hpp)
  std::vector<std::vector<std::uint32_t>> topics;     // by worker: its tokens' topics (empty: not this process's)
};

class WarmStart;  // lda/warm_start.hpp

// A fresh run's starting topics, drawn from (seed, document id, position) alone, so that the
// start is the same however the corpus is split:
//   kToken     every token's topic drawn on its own, uniform over K: the textbook start, and
//              WarpLDA's
//   kDocument  every token of a document in one topic drawn for the document
//   kAuto      (the default) kDocument where αK ≥ 10, kToken where it is less
// From kDocument a document leaves its one topic mostly through doc proposals, drawn from
// n_dk + α, whose uniform share is αK / (n_d + αK). Where αK is large (α = 50/K, the default:
// αK = 50, a third of the proposals at 100 tokens) it is the quicker start by far; where it is
// small it costs early sweeps or more (tools/bench/lda-warplda.md, 2026-12-06): held-out
// perplexity on the mails at K = 100 (α 0.5) after 10 sweeps 1082, where kToken needs 30 for
// 1084; on a planted corpus (K = 10, α 0.1, 100-token documents) 95-103 after 10 sweeps against
// kToken's 46-56 (seeds 1-6), where at α 5 it leads. kAuto's line is drawn by αK, not by each
// document's share: every corpus measured gained at αK = 50 (the mails at K = 100 and 1000,
// the Bible's chapters, the generated corpus; the planted one led early and tied after 30
// sweeps), their long documents too (a document start only for documents of up to 20αK tokens
// took the mails at K = 100 from 1291 to 1209 after 10 sweeps, the whole start to 1082), and
// lost at αK = 1 and 2 (planted; the Bible at α 0.1, K = 20). αK is the run's, so the choice needs no figure from other workers. The joint
// log-likelihood of a document start is high before any sweep (every document's topics being
// one) and falls before it climbs: a comparison by log-likelihood counts from where it stays
// above.
enum class InitialTopics { kToken, kDocument, kAuto };

// Whether a fresh run of this start and these priors puts each document in one topic: kDocument
// always, kAuto where αK ≥ 10 (see InitialTopics).
inline bool starts_in_one_topic(InitialTopics start, double alpha, std::uint32_t topics) {
  return start == InitialTopics::kDocument || (start == InitialTopics::kAuto && alpha * topics >= 10);
}

struct LdaConfig {
  std::uint32_t topics = 100;  // K
  double alpha = 0;            // symmetric doc-topic prior; 0 means 50/K (Griffiths & Steyvers)
  double beta = 0.01;          // symmetric topic-word prior
  // Metropolis-Hastings steps per token and sweep: this many word proposals, then as many doc
  // proposals (lda_kernel.hpp). 4 keeps the log-likelihood per sweep within 0.4% (K = 100) and
  // 1% (K = 1000) of the exact-count sampler gyre had before; 2 runs 1.5× as many tokens a
  // second and reaches a given log-likelihood as soon or sooner at K = 100 (README, "gyre-lda").
  int mh_steps = 4;
  std::uint64_t seed = 1;
  InitialTopics initial_topics = InitialTopics::kAuto;

  int epochs = 50;
  int workers = 1;   // rotation ring size (threads of this process in the embedded default)
  int threads = 1;   // threads per worker
  int depth = 1;     // pipeline depth d: word blocks in flight per worker
  int blocks_per_worker = 0;  // m: B = workers · m word blocks (0: m = d)
  rotation::RingOrder ring = rotation::RingOrder::kFixed;
  ComputationModel model = ComputationModel::kRotation;
  // C and D: sub-epochs per epoch. In each a worker samples 1/S of its documents' tokens (a run of
  // every document group), then the replicas are summed: S allreduces of the whole model per
  // epoch, each replica at most 1/S epoch behind the others' changes. 4 matched the rotation's
  // log-likelihood per epoch with 2 and 4 workers on a generated 2M-token corpus (K=100); 1
  // lagged it by 4% (P=2) and 7% (P=4) after 20 epochs (README, "gyre-lda --model").
  int syncs_per_epoch = 4;

  // A resumed run's start (lda/checkpoint.hpp): the sweeps done, every worker's token topics and
  // the word-topic counts as a checkpoint saved them. Null: a fresh start (initial_topics).
  std::shared_ptr<const LdaStart> start;
  // A run continuing from a trained model (lda/warm_start.hpp): the initial topics are folded in
  // against it instead of drawn (initial_topics). Of the same K, on this corpus's words.
  std::shared_ptr<const WarmStart> warm_start;

  int group_size() const { return blocks_per_worker > 0 ? blocks_per_worker : depth; }
  double alpha_value() const { return alpha > 0 ? alpha : 50.0 / topics; }
};

}  // namespace gyre::lda
