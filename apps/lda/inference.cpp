// apps/lda/inference.cpp — new documents' topic proportions by folding each in against the trained model.
#include "lda/inference.hpp"

#include <oneapi/tbb/parallel_for.h>

#include <span>
#include <stdexcept>

namespace gyre::lda {
std::vector<double> infer_topic_proportions(const FixedTopics& model, const data::Corpus& documents, int sweeps,
                                            std::uint64_t seed) {
  if (model.vocab() != documents.vocab_size())
    throw std::invalid_argument("documents on another vocabulary than the model's");
  if (sweeps < 0) throw std::invalid_argument("fold-in sweeps must be >= 0");
  const std::uint32_t K = model.topics();
  std::vector<double> theta(documents.docs() * K);
  oneapi::tbb::parallel_for(std::uint64_t{0}, documents.docs(), [&](std::uint64_t d) {
    std::vector<std::int32_t> counts(K);
    Rng rng(stream_seed(seed, kInferenceStream, documents.doc_ids[d]));
    fold_in(model, documents.doc(d), sweeps, rng, counts);
    topic_proportions(counts, model.alpha(), std::span(theta).subspan(d * K, K));
  });
  return theta;
}

}  // namespace gyre::lda
