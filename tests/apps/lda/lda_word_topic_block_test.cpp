// tests/apps/lda/lda_word_topic_block_test.cpp — packed word-topic rows: the smaller form per row, read back checked, and the same draws whatever the form.
#include <doctest/doctest.h>

#include <oneapi/tbb/task_arena.h>

#include <cstdint>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <vector>

#include "gyre/collective/communicator.hpp"
#include "gyre/data/corpus.hpp"
#include "gyre/data/corpus_partition.hpp"
#include "gyre/net/inproc.hpp"
#include "lda/trainer.hpp"
#include "lda/word_topic_block.hpp"
#include "solo_kernel.hpp"

using namespace gyre;

namespace {

constexpr std::size_t kNoBound = std::numeric_limits<std::size_t>::max();

// Rows of K counts as a dense block (rows padded to 8, as Block needs).
model::Block dense_block(std::uint32_t K, const std::vector<std::vector<std::int32_t>>& rows) {
  const std::size_t stride = model::padded_width(K);
  model::Block b(3, rows.size(), stride);
  for (std::size_t r = 0; r < rows.size(); ++r) std::copy(rows[r].begin(), rows[r].end(), b.counts() + r * stride);
  return b;
}

std::vector<std::vector<std::int32_t>> counts_by_row(const model::Block& b, std::uint32_t K) {
  const lda::BlockRows rows(b, K);
  std::vector<std::vector<std::int32_t>> out(rows.rows(), std::vector<std::int32_t>(K, 0));
  for (std::size_t r = 0; r < rows.rows(); ++r) rows.copy_dense(r, out[r]);
  return out;
}

std::vector<std::uint32_t> block_words(const model::Block& b) { return {b.words().begin(), b.words().end()}; }

model::Block packed_words(std::size_t rows, const std::vector<std::uint32_t>& words) {
  Buffer body(words.size() * sizeof(std::uint32_t));
  if (!words.empty()) std::memcpy(body.data(), words.data(), body.size());
  return model::Block::packed(0, rows, kNoBound, std::move(body));
}

}  // namespace

TEST_CASE("a packed row is sparse or dense, whichever is smaller, and reads back as its counts") {
  constexpr std::uint32_t K = 8;
  const std::vector<std::vector<std::int32_t>> rows{
      {0, 0, 0, 0, 0, 0, 0, 0},  // no tokens: a head of 0
      {0, 0, 3, 0, 0, 0, 0, 0},  // one topic: head, topic, count
      {1, 0, 2, 0, 3, 0, 4, 5},  // five topics: 2·5 > 8 words, so dense
      {0, 9, 0, 1, 0, 7, 0, 2},  // four topics: 2·4 = 8 words, not more than dense: sparse
  };
  const model::Block dense = dense_block(K, rows);
  const model::Block packed = lda::pack_block(dense, K, kNoBound);
  CHECK(packed.packed());
  CHECK(packed.id() == dense.id());
  CHECK(block_words(packed) == std::vector<std::uint32_t>{0,                                  //
                                                       1, 2, 3,                            //
                                                       lda::kDenseRow, 1, 0, 2, 0, 3, 0, 4, 5,  //
                                                       4, 1, 3, 5, 7, 9, 1, 7, 2});
  CHECK(counts_by_row(packed, K) == rows);
  CHECK(counts_by_row(lda::unpack_block(packed, K, model::padded_width(K)), K) == rows);
  // Either form of every row reads back the same counts.
  for (const lda::RowForm form : {lda::RowForm::kSparse, lda::RowForm::kDense}) {
    CAPTURE(static_cast<int>(form));
    CHECK(counts_by_row(lda::pack_block(dense, K, kNoBound, form), K) == rows);
  }
  CHECK(block_words(lda::pack_block(dense, K, kNoBound, lda::RowForm::kDense)).size() == 4 * (1 + K));

  // The bound a plan gives a row of n tokens holds it however its tokens spread.
  CHECK(lda::packed_row_bytes(0, K) == 4);
  CHECK(lda::packed_row_bytes(1, K) == 12);
  CHECK(lda::packed_row_bytes(4, K) == 36);
  CHECK(lda::packed_row_bytes(1000, K) == 36);
  CHECK_THROWS_AS(lda::pack_block(dense, K, 4 * 20), std::invalid_argument);  // 22 words: over the block's bound
}

TEST_CASE("a packer sums each row's counts given in any order and on any number of threads") {
  constexpr std::uint32_t K = 50;
  constexpr std::size_t kRows = 2000;
  // Row r counts topic (r·7 + i) mod K once for each i below r mod 60: some rows sparse, some dense.
  const auto fill = [](std::size_t r, auto add) {
    for (std::size_t i = 0; i < r % 60; ++i) add(static_cast<std::uint32_t>((r * 7 + i) % K), 1);
  };
  std::vector<std::uint32_t> serial, parallel;
  oneapi::tbb::task_arena(1).execute([&] {
    lda::RowPacker packer(K);
    const Buffer b = packer.pack(kRows, fill);
    const auto* w = reinterpret_cast<const std::uint32_t*>(b.data());
    serial.assign(w, w + b.size() / 4);
  });
  oneapi::tbb::task_arena(4).execute([&] {
    lda::RowPacker packer(K);
    const Buffer b = packer.pack(kRows, fill);
    const auto* w = reinterpret_cast<const std::uint32_t*>(b.data());
    parallel.assign(w, w + b.size() / 4);
  });
  CHECK(serial == parallel);
  const model::Block block = packed_words(kRows, serial);
  const auto rows = counts_by_row(block, K);
  for (std::size_t r = 0; r < kRows; ++r) {
    std::vector<std::int32_t> expected(K, 0);
    for (std::size_t i = 0; i < r % 60; ++i) ++expected[(r * 7 + i) % K];
    REQUIRE(rows[r] == expected);
  }
}

TEST_CASE("packed words that are not rows of K topics are refused, naming the first bad row") {
  constexpr std::uint32_t K = 4;
  const auto refused = [&](std::size_t rows, const std::vector<std::uint32_t>& words) {
    const model::Block b = packed_words(rows, words);
    try {
      (void)lda::BlockRows(b, K);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  CHECK(refused(2, {0, 0}) == "accepted");
  CHECK(refused(1, {}) == "word-topic row 0 is missing: the block ends after 0 rows");
  CHECK(refused(2, {0}) == "word-topic row 1 is missing: the block ends after 1 rows");
  CHECK(refused(1, {5, 0, 1, 2, 3, 3, 1, 1, 1, 1, 1}) ==
        "word-topic row 0 opens with 5, neither a count of at most 4 topics nor the mark of a dense row");
  CHECK(refused(1, {2, 0, 1, 5}) == "word-topic row 0 runs past the end of the block");
  CHECK(refused(1, {lda::kDenseRow, 1, 2}) == "word-topic row 0 runs past the end of the block");
  CHECK(refused(1, {0, 0}) == "word-topic block of 1 rows has 1 words after its last row");
  CHECK(refused(2, {0, 1, 4, 1}) == "word-topic row 1 names topic 4; there are 4");
  CHECK(refused(2, {0, 2, 3, 1, 1, 1}) == "word-topic row 1 lists topic 1 after topic 3 (topics must ascend, each once)");
  CHECK(refused(1, {2, 2, 2, 1, 1}) == "word-topic row 0 lists topic 2 after topic 2 (topics must ascend, each once)");
  CHECK(refused(1, {1, 3, 0}) == "word-topic row 0 has count 0 in topic 3");
  CHECK(refused(1, {1, 3, 0x80000000u}) == "word-topic row 0 has count -2147483648 in topic 3");
  CHECK(refused(2, {0, lda::kDenseRow, 1, 0, static_cast<std::uint32_t>(-2), 0}) == "word-topic row 1 has count -2 in topic 2");
  // The first bad row is named whichever thread finds a bad one first.
  std::vector<std::uint32_t> many(5000, 0);
  many[4000] = 1;
  many.insert(many.begin() + 4001, {9, 1});  // row 4000 names topic 9
  many[2000] = 1;
  many.insert(many.begin() + 2001, {7, 1});  // row 2000 names topic 7
  CHECK(refused(5000, many) == "word-topic row 2000 names topic 7; there are 4");
}

namespace {

// A corpus with frequent and rare words: at K = 16 a row of more than 4 tokens is walked in
// place, the others against a copy (lda_kernel.cpp).
data::Corpus mixed_corpus() {
  data::Corpus c;
  constexpr std::uint32_t kVocab = 40;
  for (std::uint32_t w = 0; w < kVocab; ++w) c.vocab.push_back("w" + std::to_string(w));
  std::uint64_t x = 12345;
  const auto next = [&] {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<std::uint32_t>(x >> 33);
  };
  for (std::uint64_t d = 0; d < 60; ++d) {
    std::vector<std::uint32_t> words;
    const std::uint32_t length = 5 + next() % 30;
    // Skewed: word w about twice as likely as word w + 4.
    for (std::uint32_t i = 0; i < length; ++i) words.push_back(std::min(kVocab - 1, (next() % 64) * (next() % 64) / 100));
    c.add_doc(d, words);
  }
  return c;
}

// One worker's kernel, attached to a communicator of one, after the initialising phase.
struct InitialisedWorker : gyre::test::SoloKernel {
  InitialisedWorker(const lda::LdaPlan& plan, const data::Corpus& corpus) : SoloKernel(plan, corpus) {
    kernel->train(block, visit);
    kernel->take_phase_sums(rotation::PhaseKind::kTrain);
  }
  // A sweep of `b` (phase 1, then 2, ...), and the phase's log-likelihood.
  double sweep(model::Block& b) {
    ++visit.phase;
    kernel->train(b, visit);
    return rotation::report_of<lda::LdaReport>(kernel->take_phase_sums(rotation::PhaseKind::kTrain)).log_likelihood;
  }
};

}  // namespace

TEST_CASE("the same counts packed sparse, packed dense, or dense give the same draws, bit for bit") {
  const data::Corpus corpus = mixed_corpus();
  lda::LdaConfig config;
  config.topics = 16;
  config.workers = 1;
  config.threads = 2;
  config.epochs = 3;
  config.seed = 11;
  const lda::LdaPlan plan = lda::plan_job(config, corpus.vocab_size(), data::count_words(std::span(&corpus, 1)));
  const std::uint32_t K = config.topics;
  REQUIRE(plan.blocks.rows.size() == 1);
  // Both kinds of row are there: walked in place, and copied.
  const auto walked = std::count_if(plan.word_tokens.begin(), plan.word_tokens.end(), [&](std::uint64_t n) { return n > K / 4; });
  REQUIRE(walked > 0);
  REQUIRE(static_cast<std::size_t>(walked) < plan.word_tokens.size());

  InitialisedWorker smaller(plan, corpus), sparse(plan, corpus), dense(plan, corpus), replica(plan, corpus);
  const auto start = counts_by_row(smaller.block, K);
  for (auto* w : {&sparse, &dense, &replica}) REQUIRE(counts_by_row(w->block, K) == start);
  const auto as_dense = [&](const model::Block& b) { return lda::unpack_block(b, K, model::padded_width(K)); };
  sparse.block = lda::pack_block(as_dense(sparse.block), K, kNoBound, lda::RowForm::kSparse);
  dense.block = lda::pack_block(as_dense(dense.block), K, kNoBound, lda::RowForm::kDense);
  replica.block = as_dense(replica.block);
  CHECK(block_words(sparse.block) != block_words(dense.block));

  for (int sweep = 1; sweep <= 3; ++sweep) {
    CAPTURE(sweep);
    const double loglik = smaller.sweep(smaller.block);
    for (auto* w : {&sparse, &dense, &replica}) {
      const double other = w->sweep(w->block);
      CHECK(std::memcmp(&loglik, &other, sizeof loglik) == 0);
      CHECK(w->kernel->assignments() == smaller.kernel->assignments());
      CHECK(counts_by_row(w->block, K) == counts_by_row(smaller.block, K));
    }
    // A packed block comes out of a sweep packed the smaller way, whatever way it came in.
    CHECK(block_words(sparse.block) == block_words(smaller.block));
    CHECK(block_words(dense.block) == block_words(smaller.block));
    CHECK_FALSE(replica.block.packed());
  }
  CHECK(counts_by_row(smaller.block, K) != start);  // the sweeps moved tokens
}
