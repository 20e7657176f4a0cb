// tests/apps/lda/lda_planted_test.cpp — topics planted by LDA's generative process are found again, by rotation and by allreduce.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <set>

#include "gyre/data/corpus_partition.hpp"
#include "gyre/data/planted_corpus.hpp"
#include "lda/trainer.hpp"
#include "planted_lda_corpus.hpp"

using namespace gyre;

namespace {

lda::LdaModel train_with_seed(int workers, std::uint64_t seed,
                              lda::ComputationModel model = lda::ComputationModel::kRotation) {
  lda::LdaConfig c;
  c.topics = 10;
  c.alpha = 0.1;
  c.beta = 0.01;
  c.epochs = 60;
  c.workers = workers;
  c.threads = 2;
  c.depth = 2;
  c.seed = seed;
  c.model = model;  // the allreduce model with its default syncs per epoch
  return lda::train_embedded(
      c, data::shard_corpus(test::planted_lda_corpus().corpus, static_cast<std::uint32_t>(workers)));
}

// Each true topic's best learned match is within TV 0.1 on average, one to one.
//
// Why 0.1: a topic draws ~30k of the 300k tokens; an empirical law from n draws over the
// ~100 words that carry a sparse (β = 0.01) topic's mass is off by TV ≈ ½·√(2/(πn))·Σ√p_w ≈
// 0.02, so 0.1 leaves room for assignment noise while distinct planted topics are TV ≈ 0.9+
// apart: a merged, split or missed topic fails the bound.
void check_recovered(const lda::LdaModel& model) {
  const std::size_t K = 10, V = 1000;
  double sum = 0;
  std::set<std::size_t> matched;
  for (std::size_t k = 0; k < K; ++k) {
    double best = 2;
    std::size_t best_j = 0;
    for (std::size_t j = 0; j < K; ++j) {
      double tv = 0;
      for (std::size_t w = 0; w < V; ++w)
        tv += std::abs(test::planted_lda_corpus().topics[k * V + w] -
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

}  // namespace

TEST_CASE("planted topics are recovered: the best of five starts by log-likelihood finds each true topic within TV 0.1 on average") {
  // From some starts two planted topics stay merged (see planted_lda_config: −4.05 … −4.08 per
  // token against −3.93 … −3.97 with all ten found, whichever sampler), so one fixed seed tested
  // the draw of its chain: each change to the sampler's draws moved which seeds merge (seed 9
  // merged from 2026-11-27's integer proposals on, then seed 2 from the pass-held totals), and
  // the test took another seed. As a user does, the run with the best log-likelihood of five
  // starts is kept, and it must be the one that found them all: a sampler that never finds the
  // planted topics, or whose likelihood prefers a merged state, fails.
  std::optional<lda::LdaModel> best;
  for (std::uint64_t seed = 1; seed <= 5; ++seed) {
    auto model = train_with_seed(2, seed);
    MESSAGE("seed " << seed << ": final log-likelihood per token " << model.loglik_per_token);
    if (!best || model.loglik_per_token > best->loglik_per_token) best = std::move(model);
  }
  check_recovered(*best);
}

TEST_CASE("the allreduce and no-sync models converge as the rotation does on the planted corpus, and recover its topics") {
  // 4 workers (the most staleness measured here), the default 4 syncs per epoch, 60 epochs. A
  // run ends in one of two modes, under either model: about −3.93 per token (every topic found;
  // measured −3.931 … −3.970) or −4.05 … −4.08 (two planted topics merged), 3.5% apart. Over
  // seeds 1–10 each model ended in the merged mode about half the time, the means within 0.1%
  // (P = 4: rotation −4.011, allreduce −4.011; P = 2: −3.986 and −3.989). So per seed the two
  // may be a mode apart (4%), and the best of five seeds, in the good mode for both, must agree
  // within 1% (the good mode's spread): an allreduce that lags or stalls fails. Deterministic.
  // The no-sync model is held to the same bounds; its runs depend on timing, its bounds do not.
  double rotation = -1e300, allreduce = -1e300, nosync = -1e300;
  std::optional<lda::LdaModel> best, best_nosync;
  for (std::uint64_t seed = 1; seed <= 5; ++seed) {
    CAPTURE(seed);
    const double b = train_with_seed(4, seed).loglik_per_token;
    auto c = train_with_seed(4, seed, lda::ComputationModel::kAllreduce);
    auto d = train_with_seed(4, seed, lda::ComputationModel::kNoSync);
    MESSAGE("final log-likelihood per token: rotation " << b << ", allreduce " << c.loglik_per_token << ", nosync "
                                                        << d.loglik_per_token);
    CHECK(c.loglik_per_token == doctest::Approx(b).epsilon(0.04));
    CHECK(d.loglik_per_token == doctest::Approx(b).epsilon(0.04));
    rotation = std::max(rotation, b);
    if (c.loglik_per_token > allreduce) allreduce = c.loglik_per_token, best = std::move(c);
    if (d.loglik_per_token > nosync) nosync = d.loglik_per_token, best_nosync = std::move(d);
  }
  CHECK(allreduce == doctest::Approx(rotation).epsilon(0.01));
  CHECK(nosync == doctest::Approx(rotation).epsilon(0.01));
  check_recovered(*best);
  check_recovered(*best_nosync);
}
