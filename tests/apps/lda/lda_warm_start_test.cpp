// tests/apps/lda/lda_warm_start_test.cpp — training that continues from a trained model: where it starts, the same for any sharding, and words the model lacks.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <memory>
#include <numeric>
#include <stdexcept>
#include <vector>

#include "gyre/data/corpus_partition.hpp"
#include "lda/trainer.hpp"
#include "lda/vocabulary_map.hpp"
#include "lda/warm_start.hpp"
#include "planted_lda_corpus.hpp"

using namespace gyre;

namespace {

lda::LdaConfig planted_config(int workers, int epochs) { return test::planted_lda_config(workers, epochs); }

lda::LdaModel train_planted(const lda::LdaConfig& c) {
  return lda::train_embedded(c, data::shard_corpus(test::planted_lda_corpus().corpus, static_cast<std::uint32_t>(c.workers)));
}

std::shared_ptr<const lda::WarmStart> warm_start_from(const lda::LdaModel& m) {
  std::vector<std::uint32_t> same(m.vocab.size());
  std::iota(same.begin(), same.end(), 0u);
  return std::make_shared<const lda::WarmStart>(lda::FixedTopics(m.topics, m.alpha, m.beta, m.word_topic), same);
}

}  // namespace

TEST_CASE("a warm start begins where the model left off, the same for any sharding, and training goes on from there") {
  const lda::LdaModel trained = train_planted(planted_config(2, 30));
  const auto warm = warm_start_from(trained);

  // Epochs 0: the initialising phase only, whose log-likelihood is the starting state's.
  auto start = planted_config(1, 0);
  const double fresh = train_planted(start).loglik_per_token;
  start.warm_start = warm;
  const lda::LdaModel one = train_planted(start);
  start.workers = 2;
  const lda::LdaModel two = train_planted(start);
  MESSAGE("log-likelihood per token: trained " << trained.loglik_per_token << ", its warm start " << one.loglik_per_token
                                               << ", a fresh start " << fresh);
  // Folding every document in against the trained topics gives a state as likely as the one
  // they were trained with: within 1% (measured −3.955 against −3.962: each document's topics
  // are drawn against settled word-topic counts). A uniform start, or one that ignored the
  // model, is at the fresh start's −7.69.
  CHECK(one.loglik_per_token > trained.loglik_per_token - 0.01 * std::abs(trained.loglik_per_token));
  CHECK(one.loglik_per_token > fresh + 1.0);
  // Each document draws from its own stream: the same start on one worker or two.
  CHECK(one.word_topic == two.word_topic);
  CHECK(one.doc_topic == two.doc_topic);
  // (The log-likelihood is summed over workers' parts in another order: equal up to rounding.)
  CHECK(one.loglik_per_token == doctest::Approx(two.loglik_per_token).epsilon(1e-12));

  // Ten more sweeps stay where the model was (it had converged), as training from scratch for
  // those ten sweeps does not.
  auto more = planted_config(2, 10);
  more.warm_start = warm;
  const double continued = train_planted(more).loglik_per_token;
  const double scratch = train_planted(planted_config(2, 10)).loglik_per_token;
  MESSAGE("after 10 more sweeps: " << continued << "; 10 sweeps from scratch: " << scratch);
  // Measured: −3.934 and −4.382.
  CHECK(continued > trained.loglik_per_token - 0.01 * std::abs(trained.loglik_per_token));
  CHECK(continued > scratch);
}

TEST_CASE("a warm start places the model's words by the model and the others by their document") {
  // Two topics over two words, each word all but certain of its topic; the corpus has a third
  // word the model does not know.
  const std::vector<std::int32_t> counts{1000, 0, 0, 1000};  // word 0: topic 0; word 1: topic 1
  const lda::WarmStart warm(lda::FixedTopics(2, 0.01, 0.01, counts), {0, 1, lda::kNotInModel});
  std::uint64_t unknown_in_topic0_docs = 0, unknown_topic0 = 0, alone = 0, alone_topic0 = 0;
  for (std::uint64_t d = 0; d < 2000; ++d) {
    lda::Rng rng(lda::stream_seed(7, d));
    // Eight tokens of word 0 and two of the unknown word; then a document of unknown words only.
    const std::vector<std::uint32_t> words{0, 0, 2, 0, 0, 0, 0, 2, 0, 0};
    std::vector<std::uint32_t> topics(words.size(), 9);
    warm.draw(words, rng, topics);
    for (std::size_t i = 0; i < words.size(); ++i) {
      if (words[i] == 0) REQUIRE(topics[i] == 0);
      if (words[i] == 2) {
        ++unknown_in_topic0_docs;
        unknown_topic0 += topics[i] == 0;
      }
    }
    const std::vector<std::uint32_t> strangers{2, 2};
    std::vector<std::uint32_t> drawn(2, 9);
    warm.draw(strangers, rng, drawn);
    for (const std::uint32_t k : drawn) {
      REQUIRE(k < 2);
      ++alone;
      alone_topic0 += k == 0;
    }
  }
  // p(topic 0) = (8 + α)/(8 + 2α) ≈ 0.999 in a document of topic-0 words; with no word the model
  // knows, the prior's 1/2 (4000 draws: ±0.05 is more than six standard deviations).
  CHECK(static_cast<double>(unknown_topic0) / static_cast<double>(unknown_in_topic0_docs) > 0.99);
  CHECK(std::abs(static_cast<double>(alone_topic0) / static_cast<double>(alone) - 0.5) < 0.05);

  CHECK_THROWS_AS(lda::WarmStart(lda::FixedTopics(2, 0.01, 0.01, counts), {0, 2}), std::invalid_argument);
  // A warm start of other K, or for other words, is refused before training.
  auto c = planted_config(1, 1);
  c.warm_start = std::make_shared<const lda::WarmStart>(warm);
  CHECK_THROWS_AS(train_planted(c), std::invalid_argument);
}
