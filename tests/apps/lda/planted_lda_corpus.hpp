// tests/apps/lda/planted_lda_corpus.hpp — the planted corpus the LDA tests train on: 3000 documents of ~100 tokens from 10 sparse topics over 1000 words.
#pragma once

#include "gyre/data/planted_corpus.hpp"

namespace gyre::test {

// Drawn once per test runner (about 0.3 s); α = 0.1 and β = 0.01 make sparse mixtures of
// nearly disjoint topics.
inline const data::PlantedCorpus& planted_lda_corpus() {
  static const data::PlantedCorpus p = [] {
    data::PlantedCorpusOptions o;
    o.docs = 3000;
    o.vocab = 1000;
    o.topics = 10;
    o.doc_length = 100;
    o.alpha = 0.1;
    o.beta = 0.01;
    o.seed = 4;
    return data::generate_planted_corpus(o);
  }();
  return p;
}

}  // namespace gyre::test
