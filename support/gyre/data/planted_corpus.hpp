// gyre/data/planted_corpus.hpp — synthetic documents drawn by LDA's generative process, with the true topics.
#pragma once

#include <cstdint>
#include <filesystem>
#include <vector>

#include "gyre/data/corpus.hpp"

namespace gyre::data {

struct PlantedCorpusOptions {
  std::uint64_t docs = 1000;
  std::uint32_t vocab = 1000;
  std::uint32_t topics = 10;
  double doc_length = 100;  // mean tokens per document: Poisson, at least 1
  double alpha = 0.1;       // symmetric Dirichlet prior of each document's topic mix θ_d
  double beta = 0.01;       // symmetric Dirichlet prior of each topic's word law φ_k
  std::uint64_t seed = 1;
  // Whether φ and θ are kept (and written): K × (V + D) numbers, 700M at V = 500k, D = 200k,
  // K = 1000, where a benchmark wants only the documents.
  bool keep_truth = true;
};

struct PlantedCorpus {
  Corpus corpus;                   // vocab "w0", "w1", ...; doc_ids 0..docs-1
  std::vector<double> topics;      // φ: topics × vocab, row-major, each row sums to 1 (empty unless keep_truth)
  std::vector<double> doc_topics;  // θ: docs × topics, row-major, each row sums to 1 (empty unless keep_truth)
};

// φ_k ~ Dirichlet(β) for each topic, θ_d ~ Dirichlet(α) for each document, N_d ~ max(1,
// Poisson(doc_length)), and each token's topic z ~ θ_d, its word w ~ φ_z. A document's tokens are
// in the order drawn. Deterministic in the options (same seed → same corpus, on every platform
// whose C library computes log/exp/lgamma alike). Throws std::invalid_argument for impossible
// options.
PlantedCorpus generate_planted_corpus(const PlantedCorpusOptions& options);

// Writes, each file atomically (DIR is created):
//   DIR/docword.txt, DIR/vocab.txt  the corpus in UCI bag-of-words form (see write_uci)
//   DIR/topics.tsv      φ: one line per topic, vocab tab-separated probabilities (%.6g), by word id
//   DIR/doc_topics.tsv  θ: one line per document (in docword order), topics tab-separated
//                       probabilities (%.6g), by topic
// (the last two only when the corpus was generated with keep_truth)
void write_planted_corpus(const std::filesystem::path& dir, const PlantedCorpus& data);

}  // namespace gyre::data
