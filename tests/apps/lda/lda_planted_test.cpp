// tests/apps/lda/lda_planted_test.cpp — topics planted by LDA's generative process are found again.
#include <doctest/doctest.h>

#include <cmath>
#include <set>

#include "gyre/data/corpus_partition.hpp"
#include "gyre/data/planted_corpus.hpp"
#include "lda/trainer.hpp"

using namespace gyre;

TEST_CASE("planted topics are recovered: each true topic's best learned match is within TV 0.1 on average") {
  data::PlantedCorpusOptions o;
  o.docs = 3000;
  o.vocab = 1000;
  o.topics = 10;
  o.doc_length = 100;
  o.alpha = 0.1;
  o.beta = 0.01;
  o.seed = 4;
  const auto planted = data::generate_planted_corpus(o);

  lda::LdaConfig c;
  c.topics = o.topics;
  c.alpha = o.alpha;
  c.beta = o.beta;
  c.epochs = 60;
  c.workers = 2;
  c.threads = 2;
  c.depth = 2;
  c.seed = 9;
  const auto model = lda::train_embedded(c, data::shard_corpus(planted.corpus, 2));

  // Why 0.1: a topic draws ~30k of the 300k tokens; an empirical law from n draws over the
  // ~100 words that carry a sparse (β = 0.01) topic's mass is off by TV ≈ ½·√(2/(πn))·Σ√p_w ≈
  // 0.02, so 0.1 leaves room for assignment noise while distinct planted topics are TV ≈ 0.9+
  // apart: a merged, split or missed topic fails the bound.
  const std::size_t K = o.topics, V = o.vocab;
  double sum = 0;
  std::set<std::size_t> matched;
  for (std::size_t k = 0; k < K; ++k) {
    double best = 2;
    std::size_t best_j = 0;
    for (std::size_t j = 0; j < K; ++j) {
      double tv = 0;
      for (std::size_t w = 0; w < V; ++w)
        tv += std::abs(planted.topics[k * V + w] -
                       model.word_probability(static_cast<std::uint32_t>(j), static_cast<std::uint32_t>(w)));
      if (tv / 2 < best) best = tv / 2, best_j = j;
    }
    CAPTURE(k);
    CHECK(best < 0.25);
    sum += best;
    matched.insert(best_j);
  }
  MESSAGE("mean TV between planted topics and their best learned match: " << sum / K);
  CHECK(sum / K < 0.1);
  CHECK(matched.size() == K);  // a one-to-one match: no learned topic stands for two planted ones
}
