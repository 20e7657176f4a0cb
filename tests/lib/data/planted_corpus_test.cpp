// tests/lib/data/planted_corpus_test.cpp — the LDA generator: determinism, shapes, and word frequencies close to φθ.
#include <doctest/doctest.h>

#include <cmath>
#include <numeric>

#include "gyre/data/corpus_io.hpp"
#include "gyre/data/planted_corpus.hpp"
#include "support/temp_dir.hpp"

using namespace gyre::data;
using gyre::test::read_text;
using gyre::test::TempDir;

namespace {

PlantedCorpusOptions planted_corpus_options() {
  PlantedCorpusOptions o;
  o.docs = 2000;
  o.vocab = 500;
  o.topics = 8;
  o.doc_length = 60;
  o.alpha = 0.2;
  o.beta = 0.05;
  o.seed = 17;
  return o;
}

}  // namespace

TEST_CASE("planted corpus: same seed, same corpus; other seed, other corpus") {
  const auto a = generate_planted_corpus(planted_corpus_options());
  const auto b = generate_planted_corpus(planted_corpus_options());
  auto other = planted_corpus_options();
  other.seed = 18;
  const auto c = generate_planted_corpus(other);
  CHECK(a.corpus.words == b.corpus.words);
  CHECK(a.corpus.doc_begin == b.corpus.doc_begin);
  CHECK(a.topics == b.topics);
  CHECK(a.doc_topics == b.doc_topics);
  CHECK(a.corpus.words != c.corpus.words);
}

TEST_CASE("planted corpus: shapes, vocabulary names, distributions sum to 1, lengths near the mean") {
  const auto o = planted_corpus_options();
  const auto p = generate_planted_corpus(o);
  REQUIRE(p.corpus.docs() == o.docs);
  CHECK(p.corpus.vocab.front() == "w0");
  CHECK(p.corpus.vocab.back() == "w499");
  REQUIRE(p.topics.size() == o.topics * o.vocab);
  REQUIRE(p.doc_topics.size() == o.docs * o.topics);
  for (std::size_t k = 0; k < o.topics; ++k)
    CHECK(std::accumulate(p.topics.begin() + k * o.vocab, p.topics.begin() + (k + 1) * o.vocab, 0.0) ==
          doctest::Approx(1.0));
  for (std::size_t d = 0; d < o.docs; d += 97)
    CHECK(std::accumulate(p.doc_topics.begin() + d * o.topics, p.doc_topics.begin() + (d + 1) * o.topics, 0.0) ==
          doctest::Approx(1.0));
  for (std::uint64_t d = 0; d < o.docs; ++d) REQUIRE(!p.corpus.doc(d).empty());
  const double mean = static_cast<double>(p.corpus.tokens()) / static_cast<double>(o.docs);
  CHECK(mean == doctest::Approx(60).epsilon(0.02));  // sd of the mean: sqrt(60/2000) ≈ 0.17
}

TEST_CASE("planted corpus: empirical word frequencies match sum_d N_d θ_d φ") {
  const auto o = planted_corpus_options();
  const auto p = generate_planted_corpus(o);
  const std::size_t K = o.topics, V = o.vocab;
  std::vector<double> expected(V, 0.0), observed(V, 0.0);
  for (std::uint64_t d = 0; d < o.docs; ++d) {
    const auto n = static_cast<double>(p.corpus.doc(d).size());
    for (std::size_t k = 0; k < K; ++k) {
      const double weight = n * p.doc_topics[d * K + k];
      for (std::size_t w = 0; w < V; ++w) expected[w] += weight * p.topics[k * V + w];
    }
  }
  for (const std::uint32_t w : p.corpus.words) observed[w] += 1;
  double distance = 0;  // total variation between the two word laws
  const auto tokens = static_cast<double>(p.corpus.tokens());
  for (std::size_t w = 0; w < V; ++w) distance += std::abs(observed[w] - expected[w]) / tokens;
  distance /= 2;
  // 120k tokens over 500 words: sampling noise alone gives a distance of about 0.02.
  CHECK(distance < 0.04);

  // A topic-blind law (overall word frequencies from φ averaged with equal topic weights) fits
  // worse, so the test has teeth: the documents' θ matter.
  double blind = 0;
  for (std::size_t w = 0; w < V; ++w) {
    double mix = 0;
    for (std::size_t k = 0; k < K; ++k) mix += p.topics[k * V + w] / static_cast<double>(K);
    blind += std::abs(observed[w] / tokens - mix);
  }
  CHECK(blind / 2 > distance);
}

TEST_CASE("planted corpus: files on disk") {
  TempDir dir;
  auto o = planted_corpus_options();
  o.docs = 20;
  o.vocab = 30;
  o.topics = 3;
  const auto p = generate_planted_corpus(o);
  write_planted_corpus(dir / "out", p);
  CHECK(TempDir::list_dir(dir / "out") ==
        std::vector<std::string>{"doc_topics.tsv", "docword.txt", "topics.tsv", "vocab.txt"});
  const Corpus back = read_uci(dir / "out" / "docword.txt", dir / "out" / "vocab.txt");
  CHECK(back.tokens() == p.corpus.tokens());
  CHECK(back.docs() == 20);
  const std::string topics = read_text(dir / "out" / "topics.tsv");
  CHECK(std::count(topics.begin(), topics.end(), '\n') == 3);
  CHECK(std::count(topics.begin(), topics.end(), '\t') == 3 * 29);
  const std::string theta = read_text(dir / "out" / "doc_topics.tsv");
  CHECK(std::count(theta.begin(), theta.end(), '\n') == 20);
  CHECK(std::count(theta.begin(), theta.end(), '\t') == 20 * 2);
}

TEST_CASE("planted corpus: impossible options are refused") {
  auto o = planted_corpus_options();
  o.topics = 0;
  CHECK_THROWS_AS(generate_planted_corpus(o), std::invalid_argument);
  o = planted_corpus_options();
  o.alpha = 0;
  CHECK_THROWS_AS(generate_planted_corpus(o), std::invalid_argument);
  o = planted_corpus_options();
  o.doc_length = -1;
  CHECK_THROWS_AS(generate_planted_corpus(o), std::invalid_argument);
}
