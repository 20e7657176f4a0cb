// apps/lda/heldout.cpp — document-completion perplexity of test documents against a fixed model, in parallel over documents.
#include "lda/heldout.hpp"

#include <oneapi/tbb/parallel_for.h>

#include <cmath>
#include <numeric>
#include <stdexcept>
#include <vector>

namespace gyre::lda {
HeldoutSet::HeldoutSet(data::Corpus documents, int sweeps, std::uint64_t seed)
    : documents_(std::move(documents)), sweeps_(sweeps), seed_(seed) {
  if (sweeps < 0) throw std::invalid_argument("fold-in sweeps must be >= 0");
  for (std::uint64_t d = 0; d < documents_.docs(); ++d) predicted_ += documents_.doc(d).size() / 2;
  if (predicted_ == 0)
    throw std::invalid_argument("no held-out document has a second token to predict (each needs two of known words)");
}

double HeldoutSet::perplexity(const FixedTopics& model, std::uint64_t round) const {
  if (model.vocab() != documents_.vocab_size())
    throw std::invalid_argument("held-out documents on another vocabulary than the model's");
  const std::uint32_t K = model.topics();
  std::vector<double> doc_loglik(documents_.docs(), 0.0);
  oneapi::tbb::parallel_for(std::uint64_t{0}, documents_.docs(), [&](std::uint64_t d) {
    const auto words = documents_.doc(d);
    if (words.size() < 2) return;
    std::vector<std::uint32_t> folded;
    for (std::size_t i = 0; i < words.size(); i += 2) folded.push_back(words[i]);
    std::vector<std::int32_t> counts(K);
    std::vector<double> theta(K);
    Rng rng(stream_seed(seed_, kHeldoutStream, round, documents_.doc_ids[d]));
    fold_in(model, folded, sweeps_, rng, counts);
    topic_proportions(counts, model.alpha(), theta);
    double sum = 0;
    std::vector<double> row;
    for (std::size_t i = 1; i < words.size(); i += 2) {
      const double* phi = model.phi(words[i], row);
      sum += std::log(std::inner_product(theta.begin(), theta.end(), phi, 0.0));
    }
    doc_loglik[d] = sum;
  });
  const double total = std::accumulate(doc_loglik.begin(), doc_loglik.end(), 0.0);
  return std::exp(-total / static_cast<double>(predicted_));
}

}  // namespace gyre::lda
