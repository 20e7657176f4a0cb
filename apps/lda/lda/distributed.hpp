// apps/lda/lda/distributed.hpp — LDA as one process per worker over tcp (mpirun, srun, or by hand); the model written in parts or gathered at rank 0.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "gyre/data/corpus.hpp"
#include "gyre/rotation/gather.hpp"
#include "gyre/rotation/rotation_job.hpp"
#include "lda/corpus_input.hpp"
#include "lda/trainer.hpp"

namespace gyre::lda {

// This process's part of a job of `cluster.launch.size` workers (config.workers must match),
// under either computation model (config.model). A process is given the whole corpus, which it
// shards as every process does (no exchange needed), or just its shard with the global word
// counts and document-id bound (CorpusInput::shard_only, from a partition of one shard per
// process); it samples its own shard. Epoch reports are made on rank 0. With hooks.parts every
// rank writes its part of the model there (write_parts) and all return nullopt; without, rank 0
// gathers the word-topic blocks and every rank's doc-topic rows and returns the model, and the
// other ranks return nullopt. With the same seed, P, d and T (and S for the allreduce model) the model is
// bitwise the one train_embedded produces from data::shard_corpus(corpus, P).
// hooks.inspect and hooks.backend do not apply here; hooks.heldout is refused (no process holds
// the whole model between epochs: evaluate the gathered model instead).
std::optional<LdaModel> train_distributed(const LdaConfig& config, CorpusInput input, const TrainHooks& hooks,
                                          const rotation::ClusterJobOptions& cluster);

// In worker `member`'s part once training has ended, while its links are up: rank 0 collects
// every worker's doc-topic rows (`doc_ids` are this worker's, below `doc_id_limit`, the rows
// its kernel's) and the blocks each hands in (`held`; between them every block once) and
// returns them; the others answer and return nullopt.
std::optional<rotation::GatheredModel> gather_model(const LdaPlan& plan, const runtime::Member& member,
                                                    std::span<const std::uint64_t> doc_ids, const LdaKernel& kernel,
                                                    std::vector<model::OwnedBlock>& held, std::uint64_t doc_id_limit,
                                                    std::chrono::milliseconds timeout);
// In worker `member`'s part once training has ended: every rank writes its documents' rows and
// the words of the blocks it hands in (`held`) as its part of the model at `parts.directory`,
// rank 0 topics.txt and the manifest (runtime::write_in_parts), with the job's `topic_totals`
// and `loglik_per_token` (read when rank 0 writes the manifest); nothing is gathered.
void write_parts(const LdaPlan& plan, const runtime::Member& member, std::span<const std::uint64_t> doc_ids,
                 const LdaKernel& kernel, std::vector<model::OwnedBlock>& held, const std::vector<std::string>& vocab,
                 std::span<const std::int64_t> topic_totals, const double& loglik_per_token,
                 const TrainHooks::Parts& parts, std::chrono::milliseconds timeout);
// The model from what gather_model collected at rank 0; `topic_totals` are the job's.
LdaModel assemble_gathered(const LdaPlan& plan, std::vector<std::string> vocab, rotation::GatheredModel parts,
                           std::span<const std::int64_t> topic_totals);

}  // namespace gyre::lda
