// tests/apps/lda/lda_heldout_test.cpp — document-completion perplexity and inference against a fixed model, checked against plain loops; vocabulary mapping.
#include <doctest/doctest.h>

#include <oneapi/tbb/task_arena.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "gyre/base/input_error.hpp"
#include "gyre/data/corpus.hpp"
#include "gyre/data/planted_corpus.hpp"
#include "lda/fold_in.hpp"
#include "lda/heldout.hpp"
#include "lda/inference.hpp"
#include "lda/vocabulary_map.hpp"

using namespace gyre;

namespace {

constexpr std::size_t K = 3, V = 6;
constexpr double kAlpha = 0.5, kBeta = 0.1;

// Word-topic counts n_wk, V × K, set by hand: words 0–1 lean to topic 0, 2–3 to topic 1, 4–5
// to topic 2, with enough overlap that the sampled topics matter.
const std::vector<std::int32_t> kCounts = {9, 1, 0,   6, 3, 1,   1, 8, 2,   0, 7, 3,   2, 1, 9,   3, 0, 5};

data::Corpus test_documents() {
  data::Corpus c;
  c.vocab = {"a", "b", "c", "d", "e", "f"};
  c.add_doc(10, std::vector<std::uint32_t>{0, 1, 1, 4, 5, 2, 3, 0, 4});
  c.add_doc(11, std::vector<std::uint32_t>{3, 3, 4, 0, 5, 2, 2});
  c.add_doc(12, std::vector<std::uint32_t>{5});  // nothing to predict
  return c;
}

// The estimator written out plainly: φ from the counts, even positions folded in from their
// words' most probable topics by `sweeps` Gibbs sweeps drawing as documented (one uniform per
// token, the first topic whose running sum exceeds it), θ̂ = (n_dk + α)/(N + Kα), and the odd
// positions' mean log Σ_k θ̂_k φ_k(w). `first_half` and `no_prior` are wrong variants, to show
// that the data tell them apart.
double reference_perplexity(int sweeps, std::uint64_t seed, std::uint64_t round, bool first_half = false,
                            bool no_prior = false) {
  double phi[V][K];
  for (std::size_t k = 0; k < K; ++k) {
    std::int64_t n_k = 0;
    for (std::size_t w = 0; w < V; ++w) n_k += kCounts[w * K + k];
    for (std::size_t w = 0; w < V; ++w) phi[w][k] = (kCounts[w * K + k] + kBeta) / (static_cast<double>(n_k) + V * kBeta);
  }
  const data::Corpus docs = test_documents();
  double loglik = 0;
  std::uint64_t predicted = 0;
  for (std::uint64_t d = 0; d < docs.docs(); ++d) {
    const auto words = docs.doc(d);
    std::vector<std::uint32_t> folded, evaluated;
    for (std::size_t i = 0; i < words.size(); ++i) {
      const bool fold = first_half ? i < words.size() / 2 + words.size() % 2 : i % 2 == 0;
      (fold ? folded : evaluated).push_back(words[i]);
    }
    if (words.size() < 2) continue;
    std::vector<std::uint32_t> z(folded.size());
    std::int32_t n[K] = {0, 0, 0};
    for (std::size_t i = 0; i < folded.size(); ++i) {
      std::size_t best = 0;
      for (std::size_t k = 1; k < K; ++k)
        if (phi[folded[i]][k] > phi[folded[i]][best]) best = k;
      z[i] = static_cast<std::uint32_t>(best);
      ++n[best];
    }
    lda::Rng rng(lda::stream_seed(seed, lda::kHeldoutStream, round, docs.doc_ids[d]));
    for (int s = 0; s < sweeps; ++s)
      for (std::size_t i = 0; i < folded.size(); ++i) {
        --n[z[i]];
        double running[K], total = 0;
        for (std::size_t k = 0; k < K; ++k) running[k] = total += (n[k] + kAlpha) * phi[folded[i]][k];
        const double u = rng.uniform() * total;
        std::size_t k = 0;
        while (k + 1 < K && running[k] <= u) ++k;
        z[i] = static_cast<std::uint32_t>(k);
        ++n[k];
      }
    const double alpha = no_prior ? 0.0 : kAlpha;
    for (const std::uint32_t w : evaluated) {
      double p = 0;
      for (std::size_t k = 0; k < K; ++k) p += (n[k] + alpha) / (folded.size() + K * alpha) * phi[w][k];
      loglik += std::log(p);
      ++predicted;
    }
  }
  return std::exp(-loglik / static_cast<double>(predicted));
}

lda::FixedTopics hand_set_model() { return lda::FixedTopics(K, kAlpha, kBeta, kCounts); }

}  // namespace

TEST_CASE("held-out perplexity by document completion equals the estimator written out plainly") {
  const lda::FixedTopics model = hand_set_model();
  for (const int sweeps : {0, 1, 4}) {
    CAPTURE(sweeps);
    const lda::HeldoutSet set(test_documents(), sweeps, 7);
    CHECK(set.predicted_tokens() == 4 + 3);
    for (const std::uint64_t round : {0u, 3u}) {
      CAPTURE(round);
      const double got = set.perplexity(model, round);
      const double want = reference_perplexity(sweeps, 7, round);
      MESSAGE("perplexity " << got << " (reference " << want << ")");
      CHECK(std::abs(got - want) <= 1e-9 * want);
      // The data tell the documented split and prior from plausible mistakes.
      CHECK(std::abs(reference_perplexity(sweeps, 7, round, true) - want) > 1e-3);
      CHECK(std::abs(reference_perplexity(sweeps, 7, round, false, true) - want) > 1e-3);
    }
  }
  // With sweeps the rounds draw differently (their own streams), without them nothing is drawn.
  CHECK(lda::HeldoutSet(test_documents(), 4, 7).perplexity(model, 0) !=
        lda::HeldoutSet(test_documents(), 4, 7).perplexity(model, 1));
  CHECK(lda::HeldoutSet(test_documents(), 0, 7).perplexity(model, 0) ==
        lda::HeldoutSet(test_documents(), 0, 7).perplexity(model, 1));
}

// The law is held sparse (issue 38): each word's row is made from φ̂ of a zero count and the
// word's own non-zero counts, and its top topic found without making the row. Both must be what
// a V × K table would hold: the same bits, the lowest k on a tie (ties are forced: words of
// equal counts in topics of equal totals).
TEST_CASE("the sparse word-topic law makes the rows and top topics a V x K table would hold") {
  constexpr std::uint32_t K = 7;
  const double beta = 0.01;
  std::vector<std::vector<std::int32_t>> dense{
      {0, 0, 0, 0, 0, 0, 0}, {3, 0, 0, 3, 0, 0, 0}, {0, 5, 0, 0, 0, 5, 0}, {1, 1, 1, 1, 1, 1, 1},
      {0, 0, 0, 0, 0, 0, 9}, {2, 0, 7, 0, 0, 0, 0}, {0, 0, 0, 0, 4, 0, 0}, {0, 0, 0, 0, 0, 0, 0}};
  lda::TopicCountRows rows(K);
  for (const auto& row : dense) rows.add_dense(row);
  const lda::FixedTopics model(K, 0.1, beta, rows);
  std::vector<std::int64_t> totals(K, 0);
  for (const auto& row : dense)
    for (std::uint32_t k = 0; k < K; ++k) totals[k] += row[k];
  const double vbeta = static_cast<double>(dense.size()) * beta;
  std::vector<double> made;
  for (std::uint32_t w = 0; w < dense.size(); ++w) {
    CAPTURE(w);
    std::vector<double> table(K);
    for (std::uint32_t k = 0; k < K; ++k) table[k] = (dense[w][k] + beta) / (static_cast<double>(totals[k]) + vbeta);
    const double* row = model.phi(w, made);
    for (std::uint32_t k = 0; k < K; ++k) CHECK(row[k] == table[k]);  // the same bits
    CHECK(model.top_topic(w) == static_cast<std::uint32_t>(std::max_element(table.begin(), table.end()) - table.begin()));
  }
}

TEST_CASE("held-out documents with no token to predict are refused") {
  data::Corpus c;
  c.vocab = {"a", "b"};
  c.add_doc(0, std::vector<std::uint32_t>{1});
  c.add_doc(1, std::vector<std::uint32_t>{});
  CHECK_THROWS_AS(lda::HeldoutSet(c, 2, 1), std::invalid_argument);
}

TEST_CASE("held-out perplexity and inference give the same bits on 1 and 3 threads") {
  data::PlantedCorpusOptions o;
  o.docs = 400;
  o.vocab = 300;
  o.topics = 5;
  o.doc_length = 60;
  o.seed = 3;
  const auto planted = data::generate_planted_corpus(o);
  // A model whose counts are the planted topics scaled up.
  std::vector<std::int32_t> counts(std::size_t{o.vocab} * o.topics);
  for (std::size_t k = 0; k < o.topics; ++k)
    for (std::size_t w = 0; w < o.vocab; ++w)
      counts[w * o.topics + k] = static_cast<std::int32_t>(std::lround(planted.topics[k * o.vocab + w] * 1e5));
  const lda::FixedTopics model(o.topics, 0.1, 0.01, counts);
  const lda::HeldoutSet set(planted.corpus, 5, 2);
  double perplexity[2];
  std::vector<double> theta[2];
  for (const int threads : {1, 3}) {
    const int i = threads == 1 ? 0 : 1;
    oneapi::tbb::task_arena(threads).execute([&] {
      perplexity[i] = set.perplexity(model, 4);
      theta[i] = lda::infer_topic_proportions(model, planted.corpus, 5, 2);
    });
  }
  CHECK(perplexity[0] == perplexity[1]);
  CHECK(theta[0] == theta[1]);
  REQUIRE(theta[0].size() == planted.corpus.docs() * o.topics);
  for (std::uint64_t d = 0; d < planted.corpus.docs(); ++d) {
    double sum = 0;
    for (std::size_t k = 0; k < o.topics; ++k) sum += theta[0][d * o.topics + k];
    CHECK(sum == doctest::Approx(1.0).epsilon(1e-12));
  }
}

TEST_CASE("text is mapped onto a model's vocabulary by word: unknown words are skipped and counted") {
  data::Corpus text;
  text.vocab = {"zebra", "cat", "dog"};
  text.add_doc(0, std::vector<std::uint32_t>{1, 0, 2, 0});
  text.add_doc(2, std::vector<std::uint32_t>{0});
  const std::vector<std::string> model_vocab = {"dog", "", "cat"};
  const auto mapped = lda::map_onto_vocabulary(text, model_vocab, false, "docs.txt");
  CHECK(mapped.unknown_tokens == 3);
  REQUIRE(mapped.corpus.docs() == 2);  // every input document keeps its line in the outputs
  CHECK(std::vector<std::uint32_t>(mapped.corpus.doc(0).begin(), mapped.corpus.doc(0).end()) ==
        std::vector<std::uint32_t>{2, 0});
  CHECK(mapped.corpus.doc(1).empty());
  CHECK(mapped.corpus.doc_ids == std::vector<std::uint64_t>{0, 2});
  CHECK(mapped.corpus.vocab == model_vocab);

  data::Corpus strangers;
  strangers.vocab = {"zebra"};
  strangers.add_doc(0, std::vector<std::uint32_t>{0});
  CHECK_THROWS_AS(lda::map_onto_vocabulary(strangers, model_vocab, false, "docs.txt"), InputError);
}

TEST_CASE("word ids are held to the model's vocabulary: its size, and every word it names") {
  data::Corpus ids;
  ids.vocab = {"dog", "bird", "cat"};
  ids.add_doc(0, std::vector<std::uint32_t>{0, 1, 2});
  // The model does not know id 1's name (no counts): the ids are taken as they are.
  const auto mapped = lda::map_onto_vocabulary(ids, {"dog", "", "cat"}, true, "counts.txt");
  CHECK(mapped.unknown_tokens == 0);
  CHECK(mapped.corpus.words == ids.words);
  CHECK_THROWS_AS(lda::map_onto_vocabulary(ids, {"dog", "", "cat", "cow"}, true, "counts.txt"), InputError);
  CHECK_THROWS_AS(lda::map_onto_vocabulary(ids, {"cat", "", "dog"}, true, "counts.txt"), InputError);
  try {
    lda::map_onto_vocabulary(ids, {"dog", "cat"}, true, "counts.txt");
    FAIL("a vocabulary of another size was accepted");
  } catch (const InputError& e) {
    const std::string what = e.what();
    CHECK_MESSAGE(what.find("counts.txt") != std::string::npos, what);
    CHECK_MESSAGE(what.find("vocabulary of 2 words") != std::string::npos, what);
  }
}
