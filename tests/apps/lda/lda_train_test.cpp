// tests/apps/lda/lda_train_test.cpp — LDA by rotation and by allreduce: count invariants on every backend, the schedule, reproducibility.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <mutex>
#include <numeric>
#include <random>
#include <set>

#include "gyre/data/corpus.hpp"
#include "gyre/data/corpus_partition.hpp"
#include "lda/trainer.hpp"
#include "lib/net/backends.hpp"

using namespace gyre;

namespace {

// 600 documents over a 60-word vocabulary from 3 disjoint-ish topics, lengths 5..60.
data::Corpus toy_corpus() {
  data::Corpus c;
  for (int w = 0; w < 60; ++w) c.vocab.push_back("w" + std::to_string(w));
  std::mt19937_64 rng(7);
  for (std::uint64_t d = 0; d < 600; ++d) {
    const int len = 5 + static_cast<int>(rng() % 56);
    const int main_topic = static_cast<int>(d % 3);
    std::vector<std::uint32_t> words;
    for (int i = 0; i < len; ++i) {
      const int topic = rng() % 4 == 0 ? static_cast<int>(rng() % 3) : main_topic;
      words.push_back(static_cast<std::uint32_t>(topic * 20 + static_cast<int>(rng() % 20)));
    }
    c.add_doc(d, words);
  }
  return c;
}

lda::LdaConfig toy_config(int P, int T, int d, int epochs) {
  lda::LdaConfig c;
  c.topics = 5;
  c.epochs = epochs;
  c.workers = P;
  c.threads = T;
  c.depth = d;
  c.seed = 11;
  return c;
}

// Harp's allreduce model: a replica per worker, S sub-epochs (syncs) per epoch.
lda::LdaConfig allreduce(int P, int T, int S, int epochs) {
  auto c = toy_config(P, T, 1, epochs);
  c.model = lda::ComputationModel::kAllreduce;
  c.syncs_per_epoch = S;
  return c;
}

// Harp's no-sync model: a replica per worker, S pushes per epoch, peers' changes added as they arrive.
lda::LdaConfig nosync(int P, int T, int S, int epochs) {
  auto c = allreduce(P, T, S, epochs);
  c.model = lda::ComputationModel::kNoSync;
  return c;
}

// Harp's locking model: one copy of the counts at the lock service.
lda::LdaConfig locking(int P, int T, int epochs) {
  auto c = toy_config(P, T, 1, epochs);
  c.model = lda::ComputationModel::kLocking;
  return c;
}

// Checks every count against the topic assignments, and that they agree with each other.
void check_counts(const lda::LdaModel& m, const std::vector<data::Corpus>& shards,
                  const std::vector<std::vector<std::uint32_t>>& z, const std::vector<std::vector<std::int64_t>>& totals) {
  const std::uint32_t K = m.topics;
  const auto V = static_cast<std::uint32_t>(m.vocab.size());
  std::vector<std::int64_t> word_topic(static_cast<std::size_t>(V) * K, 0);
  std::uint64_t tokens = 0;
  for (std::size_t w = 0; w < shards.size(); ++w) {
    REQUIRE(z[w].size() == shards[w].tokens());
    for (std::size_t p = 0; p < z[w].size(); ++p) ++word_topic[std::size_t{shards[w].words[p]} * K + z[w][p]];
    tokens += shards[w].tokens();
  }
  const std::vector<std::int32_t> model_counts = m.word_topic.dense();
  REQUIRE(model_counts.size() == word_topic.size());
  CHECK(std::accumulate(model_counts.begin(), model_counts.end(), std::int64_t{0}) == static_cast<std::int64_t>(tokens));
  bool rows_match = true;
  for (std::size_t i = 0; i < word_topic.size(); ++i) rows_match = rows_match && word_topic[i] == model_counts[i];
  CHECK(rows_match);
  // n_k equals the column sums, on every worker.
  for (std::uint32_t k = 0; k < K; ++k) {
    std::int64_t column = 0;
    for (std::uint32_t v = 0; v < V; ++v) column += model_counts[std::size_t{v} * K + k];
    for (const auto& t : totals) CHECK(t[k] == column);
  }
  // Doc-topic rows sum to document lengths.
  std::map<std::uint64_t, std::uint64_t> length;
  for (const auto& s : shards)
    for (std::uint64_t d = 0; d < s.docs(); ++d) length[s.doc_ids[d]] = s.doc(d).size();
  REQUIRE(m.doc_ids.size() == length.size());
  for (std::size_t i = 0; i < m.doc_ids.size(); ++i) {
    const auto row = m.doc_topic.dense(i);
    REQUIRE(row.size() == K);
    CHECK(static_cast<std::uint64_t>(std::accumulate(row.begin(), row.end(), std::int64_t{0})) == length[m.doc_ids[i]]);
  }
}

struct Run {
  lda::LdaModel model;
  std::vector<lda::EpochReport> epochs;
  std::vector<std::vector<std::uint32_t>> z;
  std::vector<std::vector<std::int64_t>> totals;
  std::map<std::tuple<int, std::uint64_t, model::BlockId>, int> visits;  // (worker, phase, block) → count
};

template <class Backend = void>
Run train_inspected(const lda::LdaConfig& c, const std::vector<data::Corpus>& shards) {
  Run r;
  r.z.resize(shards.size());
  r.totals.resize(shards.size());
  std::mutex m;
  lda::TrainHooks hooks;
  hooks.on_epoch = [&](const lda::EpochReport& e) { r.epochs.push_back(e); };
  hooks.inspect = [&](int w, const lda::LdaKernel& k) {
    r.z[static_cast<std::size_t>(w)] = k.assignments();
    r.totals[static_cast<std::size_t>(w)] = k.topic_totals();
  };
  hooks.job.on_visit = [&](int w, const rotation::Visit& v) {
    std::lock_guard lock(m);
    ++r.visits[{w, v.phase, v.block}];
  };
  if constexpr (!std::is_void_v<Backend>) hooks.backend = Backend::runtime_backend();
  r.model = lda::train_embedded(c, shards, hooks);
  return r;
}

bool same_model_bits(const lda::LdaModel& a, const lda::LdaModel& b) {
  return a.word_topic == b.word_topic && a.doc_topic == b.doc_topic && a.topic_totals == b.topic_totals &&
         std::memcmp(&a.loglik_per_token, &b.loglik_per_token, sizeof(double)) == 0;
}

}  // namespace

TEST_CASE_TEMPLATE("under either model the counts stay consistent after every epoch; rotating blocks visit every worker "
                   "once per epoch", B, GYRE_TEST_BACKENDS) {
  // Under the allreduce model the model gathered is worker 0's replica: check_counts holds it
  // to every worker's topic assignments (the sum of all workers' changes), and every worker's
  // totals to its column sums.
  // Under the locking model it is the lock service's one copy, whoever sampled each block last.
  // Under the no-sync model it is worker 0's replica once every push has been added.
  const auto corpus = toy_corpus();
  for (auto model : {lda::ComputationModel::kRotation, lda::ComputationModel::kAllreduce, lda::ComputationModel::kLocking,
                     lda::ComputationModel::kNoSync}) {
    const bool rotation = model == lda::ComputationModel::kRotation;
    const bool locked = model == lda::ComputationModel::kLocking;
    const bool pushed = model == lda::ComputationModel::kNoSync;
    for (int P : {1, 3}) {
      const auto shards = data::shard_corpus(corpus, static_cast<std::uint32_t>(P));
      // The rotation with depth 1 and 2, the allreduce model with 1 and 3 syncs per epoch.
      for (int x : {1, rotation ? 2 : 3}) {
        if (locked && x != 1) continue;
        // Runs are deterministic, so the state after epoch e is the final state of an e-epoch run.
        for (int epochs = 0; epochs <= 3; ++epochs) {
          CAPTURE(lda::name_of(model));
          CAPTURE(P);
          CAPTURE(x);
          CAPTURE(epochs);
          const Run r = train_inspected<B>(rotation ? toy_config(P, 2, x, epochs)
                                           : locked ? locking(P, 2, epochs)
                                           : pushed ? nosync(P, 2, x, epochs)
                                                    : allreduce(P, 2, x, epochs),
                                           shards);
          check_counts(r.model, shards, r.z, r.totals);
          REQUIRE(r.epochs.size() == static_cast<std::size_t>(epochs + 1));
          for (std::size_t e = 1; e < r.epochs.size(); ++e) CHECK(r.epochs[e].tokens_per_s > 0);
          CHECK(r.visits.size() == (rotation ? static_cast<std::size_t>((epochs + 1) * P * P * x) : 0));
          for (const auto& [key, count] : r.visits) CHECK(count == 1);
        }
      }
    }
  }
}

TEST_CASE_TEMPLATE("under either model the same seed, P, d, T (and S) give bitwise identical counts and likelihoods, "
                   "on every backend", B, GYRE_TEST_BACKENDS) {
  for (const auto& c : {toy_config(2, 2, 2, 4), allreduce(3, 2, 2, 4)}) {
    CAPTURE(lda::name_of(c.model));
    const auto shards = data::shard_corpus(toy_corpus(), static_cast<std::uint32_t>(c.workers));
    const Run a = train_inspected(c, shards);
    const Run b = train_inspected<B>(c, shards);
    CHECK(same_model_bits(a.model, b.model));
    REQUIRE(a.epochs.size() == b.epochs.size());
    for (std::size_t e = 0; e < a.epochs.size(); ++e) CHECK(a.epochs[e].loglik_per_token == b.epochs[e].loglik_per_token);
    // Another seed moves things.
    auto other = c;
    other.seed = 12;
    CHECK_FALSE(same_model_bits(a.model, train_inspected(other, shards).model));
  }
  const auto shards = data::shard_corpus(toy_corpus(), 3);
  CHECK_FALSE(same_model_bits(train_inspected(allreduce(3, 2, 2, 4), shards).model,
                              train_inspected(allreduce(3, 2, 1, 4), shards).model));
}

TEST_CASE("the depth only bounds the word blocks in flight: with the same blocks per worker, every depth gives the same bits") {
  const auto shards = data::shard_corpus(toy_corpus(), 3);
  auto c = toy_config(3, 1, 1, 3);
  c.blocks_per_worker = 3;
  const Run one = train_inspected(c, shards);
  for (int d : {2, 3}) {
    CAPTURE(d);
    c.depth = d;
    CHECK(same_model_bits(one.model, train_inspected(c, shards).model));
  }
  c.blocks_per_worker = 0;  // m = d = 3: the same 9 blocks
  CHECK(same_model_bits(one.model, train_inspected(c, shards).model));
  c.blocks_per_worker = 1;  // other blocks, other streams
  CHECK_FALSE(same_model_bits(one.model, train_inspected(c, shards).model));
}

TEST_CASE("with one worker and one sync per epoch the allreduce model is the rotation, bit for bit: one sampler") {
  // Nothing to sum and nothing stale: the same kernel steps in the same order with the same
  // random streams must give the same counts and likelihoods.
  const auto shards = data::shard_corpus(toy_corpus(), 1);
  for (int d : {1, 2}) {
    CAPTURE(d);
    auto c = allreduce(1, 2, 1, 4);
    c.depth = d;
    const Run a = train_inspected(c, shards);
    const Run b = train_inspected(toy_config(1, 2, d, 4), shards);
    CHECK(same_model_bits(a.model, b.model));
    for (std::size_t e = 0; e < a.epochs.size(); ++e) CHECK(a.epochs[e].loglik_per_token == b.epochs[e].loglik_per_token);
  }
  // Two document parts draw other streams.
  CHECK_FALSE(same_model_bits(train_inspected(allreduce(1, 2, 2, 4), shards).model,
                              train_inspected(toy_config(1, 2, 1, 4), shards).model));
}

TEST_CASE("the log-likelihood rises from the random start and the toy topics separate, under every model") {
  const auto shards = data::shard_corpus(toy_corpus(), 2);
  for (auto model : {lda::ComputationModel::kRotation, lda::ComputationModel::kAllreduce, lda::ComputationModel::kLocking,
                     lda::ComputationModel::kNoSync}) {
    CAPTURE(lda::name_of(model));
    auto c = toy_config(2, 2, 1, 30);
    c.topics = 3;
    c.model = model;
    const Run r = train_inspected(c, shards);
    REQUIRE(r.epochs.size() == 31);
    CHECK(r.epochs.back().loglik_per_token > r.epochs.front().loglik_per_token + 0.3);
    // Each planted topic's 20 words end up mostly in one learned topic.
    for (int t = 0; t < 3; ++t) {
      std::vector<std::int64_t> by_topic(3, 0);
      for (int w = t * 20; w < t * 20 + 20; ++w)
        for (int k = 0; k < 3; ++k) by_topic[static_cast<std::size_t>(k)] += r.model.word_topic.count(static_cast<std::size_t>(w), static_cast<std::uint32_t>(k));
      const auto total = std::accumulate(by_topic.begin(), by_topic.end(), std::int64_t{0});
      CHECK(static_cast<double>(*std::max_element(by_topic.begin(), by_topic.end())) > 0.9 * static_cast<double>(total));
    }
  }
}

TEST_CASE("the document start puts each document's tokens in one topic, the same for any split, and sweeps split them") {
  const data::Corpus corpus = toy_corpus();
  // How many documents have tokens in more than one topic, and the model's doc-topic rows.
  const auto mixed_documents = [](const lda::LdaModel& m) {
    std::size_t mixed = 0;
    for (std::size_t i = 0; i < m.doc_ids.size(); ++i) mixed += m.doc_topic.topics_of(i).size() > 1 ? 1 : 0;
    return mixed;
  };
  std::vector<lda::LdaModel> starts;
  for (const int P : {1, 3}) {
    CAPTURE(P);
    auto c = toy_config(P, 2, 1, 0);
    c.initial_topics = lda::InitialTopics::kDocument;
    starts.push_back(lda::train_embedded(c, data::shard_corpus(corpus, static_cast<std::uint32_t>(P))));
    const lda::LdaModel& m = starts.back();
    REQUIRE(m.doc_ids.size() == corpus.docs());
    CHECK(mixed_documents(m) == 0);
    for (std::size_t i = 0; i < m.doc_ids.size(); ++i) {
      const auto counts = m.doc_topic.counts_of(i);
      REQUIRE(counts.size() == 1);
      CHECK(static_cast<std::size_t>(counts[0]) == corpus.doc(i).size());
    }
  }
  CHECK(starts[0].doc_topic == starts[1].doc_topic);
  CHECK(starts[0].word_topic == starts[1].word_topic);
  // The documents' topics differ from one another (a topic per document, not one for all).
  std::set<std::uint32_t> first_topics;
  for (std::size_t i = 0; i < starts[0].doc_ids.size(); ++i) first_topics.insert(starts[0].doc_topic.topics_of(i)[0]);
  CHECK(first_topics.size() == 5);

  // The textbook start mixes nearly every document; from the document start the sampler splits
  // documents (a quarter of each toy document's tokens are of other planted topics).
  auto token = toy_config(1, 2, 1, 0);
  token.initial_topics = lda::InitialTopics::kToken;
  CHECK(mixed_documents(lda::train_embedded(token, data::shard_corpus(corpus, 1))) > 550);
  auto c = toy_config(1, 2, 1, 10);
  c.initial_topics = lda::InitialTopics::kDocument;
  CHECK(mixed_documents(lda::train_embedded(c, data::shard_corpus(corpus, 1))) > 300);
}

TEST_CASE("the automatic start is the document start where alpha K is at least 10 and the token start where it is less") {
  const auto shards = data::shard_corpus(toy_corpus(), 2);
  for (const double alpha : {0.0, 2.0, 1.9, 0.3}) {  // alpha K: 50 (the default alpha, 50/K), 10, 9.5, 1.5
    CAPTURE(alpha);
    auto c = toy_config(2, 2, 1, 0);
    REQUIRE(c.initial_topics == lda::InitialTopics::kAuto);  // the default
    c.alpha = alpha;
    const lda::LdaModel automatic = lda::train_embedded(c, shards);
    c.initial_topics = c.alpha_value() * c.topics >= 10 ? lda::InitialTopics::kDocument : lda::InitialTopics::kToken;
    const lda::LdaModel chosen = lda::train_embedded(c, shards);
    c.initial_topics = c.initial_topics == lda::InitialTopics::kDocument ? lda::InitialTopics::kToken
                                                                         : lda::InitialTopics::kDocument;
    const lda::LdaModel other = lda::train_embedded(c, shards);
    CHECK(automatic.doc_topic == chosen.doc_topic);
    CHECK(automatic.word_topic == chosen.word_topic);
    CHECK_FALSE(automatic.doc_topic == other.doc_topic);
  }
}

TEST_CASE("with one worker the locking model is the rotation, bit for bit: one sampler, blocks in the same order") {
  const auto shards = data::shard_corpus(toy_corpus(), 1);
  for (int m : {1, 3}) {
    CAPTURE(m);
    auto rotation = toy_config(1, 2, 1, 4);
    rotation.blocks_per_worker = m;
    auto locked = locking(1, 2, 4);
    locked.blocks_per_worker = m;
    const Run a = train_inspected(locked, shards);
    const Run b = train_inspected(rotation, shards);
    CHECK(same_model_bits(a.model, b.model));
    for (std::size_t e = 0; e < a.epochs.size(); ++e) CHECK(a.epochs[e].loglik_per_token == b.epochs[e].loglik_per_token);
  }
}

TEST_CASE("configs that cannot run are refused with a reason") {
  const auto shards = data::shard_corpus(toy_corpus(), 1);
  auto c = toy_config(1, 1, 1, 1);
  c.topics = 0;
  CHECK_THROWS_WITH_AS(lda::train_embedded(c, shards), doctest::Contains("topics"), std::invalid_argument);
  c = toy_config(1, 1, 1, 1);
  c.beta = 0;
  CHECK_THROWS_WITH_AS(lda::train_embedded(c, shards), doctest::Contains("beta"), std::invalid_argument);
  c = toy_config(2, 1, 1, 1);
  CHECK_THROWS_WITH_AS(lda::train_embedded(c, shards), doctest::Contains("shard per worker"), std::invalid_argument);
  for (int S : {0, 1025}) {
    c = allreduce(1, 1, S, 1);
    CHECK_THROWS_WITH_AS(lda::train_embedded(c, shards), doctest::Contains("syncs-per-epoch must be in 1..1024"),
                         std::invalid_argument);
  }
  CHECK(lda::parse_computation_model("B") == lda::ComputationModel::kRotation);
  CHECK(lda::parse_computation_model("allreduce") == lda::ComputationModel::kAllreduce);
  CHECK(lda::parse_computation_model("A") == lda::ComputationModel::kLocking);
  CHECK(lda::parse_computation_model("locking") == lda::ComputationModel::kLocking);
  CHECK(lda::parse_computation_model("D") == lda::ComputationModel::kNoSync);
  CHECK(lda::parse_computation_model("nosync") == lda::ComputationModel::kNoSync);
  for (const char* bad : {"E", "no-sync", "c", ""})
    CHECK_THROWS_WITH_AS(lda::parse_computation_model(bad),
                         doctest::Contains("expected A|locking, B|rotation, C|allreduce or D|nosync"), std::invalid_argument);
}
