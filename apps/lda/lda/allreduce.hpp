// apps/lda/lda/allreduce.hpp — LDA under Harp's allreduce (C), no-sync (D) and locking (A) models, on any backend: a replica of the counts per worker, changes summed or pushed; or one copy at the lock service.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "gyre/data/corpus.hpp"
#include "gyre/model/block.hpp"
#include "gyre/rotation/protocol.hpp"
#include "gyre/runtime/job.hpp"
#include "gyre/runtime/mailbox.hpp"
#include "lda/trainer.hpp"

namespace gyre::lda {

// Ranks 0 … workers−1; and every word block of the plan, by id, as training starts it, dense
// (the replicas' changes are summed count by count; the lock service keeps blocks of a fixed size).
std::vector<int> worker_ranks(int workers);
std::vector<model::Block> starting_blocks(const LdaPlan& plan);

// C (plan.config.model == kAllreduce). The same plan, kernel, epoch policy and reports as the
// rotation; only how the workers share the word-topic counts differs. Workers are members
// 0 … P−1, the scheduler (the phase driver) member P. Every worker keeps a replica of all the plan's word blocks and samples only its own
// documents, against it. An epoch is config.syncs_per_epoch sub-epochs: in each a worker sweeps
// one document part of its shard (WorkerTokens) over every block, its replica changing as it
// samples; then each block's changes are summed over the workers (32-bit integers: exact, so
// the sums do not depend on their order) and every replica becomes the sub-epoch's start plus
// the sum, the topic totals likewise. The initialising phase is one such sub-epoch that adds
// every worker's initial topics to empty replicas. With the same seed, P, d, T and S the
// result is bitwise the same on every backend.
//
// D (kNoSync) runs the same sub-epochs, but instead of the sum a worker pushes its changes of
// the sub-epoch to every peer (collective::DeltaExchange) and adds whatever the peers have
// pushed by then, waiting for none of them; only as an epoch ends does it wait for every push,
// so the reports and the model are of equal replicas. What a worker samples against depends
// on timing: runs are not bitwise repeatable, and take no checkpoints.
//
// On a threads backend every member runs here; across processes this process runs the ones
// runtime::Job::host_of gives it, and only those workers' entries of `shards` are read (the
// others may be empty). The process that hosts worker 0 gathers the model (worker 0's replica
// and every worker's doc-topic rows, whose ids are below `doc_id_limit`) and returns it; the
// others return nullopt. `timeout` is every member's longest wait for a peer. Of the hooks,
// on_epoch, on_traffic and inspect (after the job, for the workers this process ran) apply.
// One worker's part of that job, from the first phase to the driver's stop (member
// plan.config.workers): returns its replica, every block by id. A summed block whose rows do
// not hold their words' tokens exactly (a rank with another corpus, or a hostile one) fails it
// with std::runtime_error.
// `at_phase_end` (may be empty) is called as every phase ends, as the rotation engine's is, with
// the replica on worker 0 and no blocks elsewhere (checkpoints).
using AtPhaseEnd = std::function<void(int, std::uint64_t, rotation::PhaseKind, std::span<const model::Block* const>)>;
std::vector<model::Block> run_allreduce_worker(const LdaPlan& plan, int rank, LdaKernel& kernel,
                                               runtime::Mailbox& inbox, std::chrono::milliseconds timeout,
                                               const AtPhaseEnd& at_phase_end = {});

// A (plan.config.model == kLocking): one copy of the word-topic counts, every block dense, kept
// by the lock service (member P + 1; a key guards its block's counts and the counts travel with
// the grant). In each phase a worker takes any block it has not done yet that nobody holds, in
// its own order from its own first block, samples its documents' tokens of those words (the
// initialising phase adds its initial topics) and hands the block back; then the workers sum
// their topic totals' changes, and worker b mod P takes block b once more to count its part of
// the log-likelihood. The order blocks come free in depends on timing, so runs are not
// bitwise repeatable, and take no checkpoints. After the last phase worker 0 takes every block
// and returns them; the others return nothing.
std::vector<model::Block> run_locking_worker(const LdaPlan& plan, int rank, LdaKernel& kernel, runtime::Mailbox& inbox,
                                             std::chrono::milliseconds timeout, int lock_rank);
// The lock service of that job, on the calling member until every worker has finished.
void serve_word_blocks(const LdaPlan& plan, runtime::Mailbox& inbox, std::chrono::milliseconds timeout);

// The job of the allreduce, no-sync or locking model (plan.config.model), as described above.
std::optional<LdaModel> train_shared_models(const LdaPlan& plan, const std::vector<data::Corpus>& shards,
                                            const std::vector<std::string>& vocab, std::uint64_t doc_id_limit,
                                            const TrainHooks& hooks, runtime::Backend backend,
                                            std::chrono::milliseconds timeout);

}  // namespace gyre::lda
