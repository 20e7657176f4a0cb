// apps/lda/lda/inference.hpp — topic proportions of new documents under a fixed trained model, in parallel over documents.
#pragma once

#include <cstdint>
#include <vector>

#include "gyre/data/corpus.hpp"
#include "lda/fold_in.hpp"

namespace gyre::lda {

// Every token of document d is folded in (fold_in, `sweeps` sweeps, its own random stream
// (seed, doc id)) and θ̂_dk = (n_dk + α)/(N_d + Kα) is its row: documents × K proportions,
// row-major, in the corpus's order. A document without a token the model knows gets the prior's
// uniform 1/K. Documents are sampled in parallel (TBB, the calling arena's threads) each into
// its own row: the same bits for any number of threads. `documents` are on the model's word ids.
// Names inference's streams, (seed, kInferenceStream, doc id).
inline constexpr std::uint64_t kInferenceStream = 0x1AFE2;

std::vector<double> infer_topic_proportions(const FixedTopics& model, const data::Corpus& documents, int sweeps,
                                            std::uint64_t seed);

}  // namespace gyre::lda
