// apps/lda/lda/distributed.hpp — LDA as one process per worker over tcp (mpirun, srun, or by hand).
#pragma once

#include <optional>

#include "gyre/data/corpus.hpp"
#include "gyre/pipeline/cluster_job.hpp"
#include "lda/trainer.hpp"

namespace gyre::lda {

// This process's part of a job of `cluster.launch.size` workers (config.workers must match).
// Every process is given the whole corpus (the plan needs the global word counts, and
// sharding it the same way everywhere needs no exchange) and samples its own shard. Epoch
// reports are made on rank 0, which also gathers every rank's word-topic blocks and doc-topic
// rows and returns the model; the other ranks return nullopt. With the same seed, P, d and T
// the model is bitwise the one train_embedded produces from data::shard_corpus(corpus, P).
// hooks.inspect and hooks.backend do not apply here.
std::optional<LdaModel> train_distributed(const LdaConfig& config, const data::Corpus& corpus, const TrainHooks& hooks,
                                          const pipeline::ClusterJobOptions& cluster);

}  // namespace gyre::lda
