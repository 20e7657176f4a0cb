// tests/apps/lda/lda_reference_test.cpp — on real text, gyre's sampler reaches what a plain textbook collapsed Gibbs sampler reaches.
#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>

#include "gyre/data/corpus_io.hpp"
#include "gyre/data/corpus_partition.hpp"
#include "lda/reference_sampler.hpp"
#include "lda/trainer.hpp"
#include "support/corpora.hpp"

using namespace gyre;

using gyre::test::corpus_file;

TEST_CASE("on the King James Bible, log-likelihood per token rises and ends within 1% of the textbook sampler's") {
  const auto file = corpus_file("bible");
  REQUIRE_MESSAGE(std::filesystem::exists(file), "missing " << file << ": run tools/data/fetch-corpora.sh bible");
  data::CorpusOptions opts;
  opts.format = data::CorpusFormat::text;
  for (auto& w : data::default_stop_words()) opts.tokenizer.stop_words.insert(w);
  opts.tokenizer.min_count = 5;
  const data::Corpus corpus = data::load_corpus(file, opts);
  REQUIRE(corpus.tokens() > 200'000);  // ~1189 chapters

  const std::size_t K = 20;
  const int epochs = 100;
  lda::LdaConfig c;
  c.topics = K;
  c.alpha = 0.1;
  c.beta = 0.01;
  c.epochs = epochs;
  c.workers = 2;
  c.threads = 2;
  c.depth = 2;
  c.seed = 3;
  std::vector<double> ours;
  lda::TrainHooks hooks;
  hooks.on_epoch = [&](const lda::EpochReport& r) { ours.push_back(r.loglik_per_token); };
  const lda::LdaModel model = lda::train_embedded(c, data::shard_corpus(corpus, 2), hooks);
  const auto reference = lda::reference_sampler(corpus, K, c.alpha, c.beta, epochs, c.seed);

  REQUIRE(ours.size() == reference.size());
  MESSAGE("loglik/token start " << ours.front() << " (reference " << reference.front() << "), after " << epochs
                                << " epochs " << ours.back() << " (reference " << reference.back() << ")");
  // The kernel's likelihood of its final state agrees with the plain formula over its counts.
  {
    const std::vector<std::int32_t> dense_nwk = model.word_topic.dense();
    std::vector<std::int64_t> nwk(dense_nwk.begin(), dense_nwk.end());
    std::vector<std::int64_t> ndk;
    for (std::size_t i = 0; i < model.doc_ids.size(); ++i)
      for (const std::int32_t n : model.doc_topic.dense(i)) ndk.push_back(n);
    std::vector<std::int64_t> len;
    for (std::size_t i = 0; i < model.doc_ids.size(); ++i) {
      std::int64_t n = 0;
      for (std::size_t k = 0; k < K; ++k) n += ndk[i * K + k];
      len.push_back(n);
    }
    const double plain = lda::joint_loglik(nwk, ndk, model.topic_totals, len, K, corpus.vocab_size(), c.alpha, c.beta) /
                         static_cast<double>(corpus.tokens());
    CHECK(ours.back() == doctest::Approx(plain).epsilon(1e-9));
  }
  // Rises: well above the random start after a few sweeps, and still no lower at the end.
  CHECK(ours[5] > ours[0] + 0.2);
  CHECK(ours.back() >= ours[5]);
  CHECK(std::abs(ours.back() - reference.back()) <= 0.01 * std::abs(reference.back()));
}
