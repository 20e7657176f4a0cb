// tests/apps/lda/lda_wire_test.cpp — word-topic blocks (rotating packed, or summed replicas) with negative, huge or inconsistent counts are refused before the kernel sizes anything from them.
#include <doctest/doctest.h>

#include <cstring>
#include <functional>
#include <future>
#include <optional>

#include "gyre/data/corpus.hpp"
#include "gyre/data/corpus_partition.hpp"
#include "gyre/net/inproc.hpp"
#include "gyre/rotation/block_codec.hpp"
#include "gyre/rotation/rotation_driver.hpp"
#include "gyre/rotation/worker_engine.hpp"
#include "lda/allreduce.hpp"
#include "lda/trainer.hpp"
#include "lda/word_topic_block.hpp"
#include "lib/net/backends.hpp"
#include "solo_kernel.hpp"
#include "support/job_failure.hpp"

using namespace gyre;
using namespace std::chrono_literals;

namespace {

// Three documents over four words; word 0 has 3 tokens, word 1 two, word 2 four, word 3 two.
data::Corpus tiny_corpus() {
  data::Corpus c;
  c.vocab = {"a", "b", "c", "d"};
  const std::vector<std::vector<std::uint32_t>> docs{{0, 0, 1, 2}, {1, 3, 3}, {0, 2, 2, 2}};
  for (std::size_t d = 0; d < docs.size(); ++d) c.add_doc(d, docs[d]);
  return c;
}

lda::LdaConfig one_epoch_config(int workers) {
  lda::LdaConfig c;
  c.topics = 3;
  c.workers = workers;
  c.epochs = 1;
  c.seed = 5;
  return c;
}

// A packed block's counts as dense rows the test can edit.
model::Block dense_of(const model::Block& packed, std::uint32_t K) {
  return lda::unpack_block(packed, K, model::padded_width(K));
}

// Dense rows packed as they are, every row in the dense form, lies included (a negative count,
// a total the word does not have): what a hostile or broken peer could send.
model::Block packed_as_is(const model::Block& dense, std::uint32_t K) {
  Buffer words(dense.rows() * (1 + K) * sizeof(std::uint32_t));
  auto* at = reinterpret_cast<std::uint32_t*>(words.data());
  for (std::size_t r = 0; r < dense.rows(); ++r) {
    *at++ = lda::kDenseRow;
    for (std::uint32_t k = 0; k < K; ++k) *at++ = static_cast<std::uint32_t>(dense.counts()[r * dense.stride() + k]);
  }
  return model::Block::packed(dense.id(), dense.rows(), words.size(), std::move(words));
}

// The tiny corpus's one-worker plan.
struct TinyJob {
  data::Corpus corpus = tiny_corpus();
  lda::LdaPlan plan = lda::plan_job(one_epoch_config(1), 4, data::count_words(std::span(&corpus, 1)));
};

// One worker over the whole corpus: its kernel, attached to a communicator of one, and its block.
struct SoloWorker : TinyJob, gyre::test::SoloKernel {
  SoloWorker() : SoloKernel(plan, corpus) {}
  // Row r of a dense block is word plan.blocks.rows[0][r].
  std::int32_t* row_of_word(model::Block& dense, std::uint32_t word) {
    return dense.counts() + plan.blocks.row_of[word] * dense.stride();
  }
  // The block with one of its words' rows edited, dense (as a summed replica of the allreduce
  // model is), or as a peer would pack it.
  template <class Edit>
  model::Block dense_edited(const model::Block& packed, std::uint32_t word, Edit edit) {
    model::Block d = dense_of(packed, plan.config.topics);
    edit(row_of_word(d, word));
    return d;
  }
  template <class Edit>
  model::Block edited(const model::Block& packed, std::uint32_t word, Edit edit) {
    return packed_as_is(dense_edited(packed, word, edit), plan.config.topics);
  }
};

}  // namespace

TEST_CASE("while the first phase builds the counts, a row with a negative count or more tokens than its word is refused") {
  SoloWorker w;
  SUBCASE("negative") {
    w.block = w.edited(w.block, 1, [](std::int32_t* row) { row[2] = -1; });
    CHECK_THROWS_WITH_AS(w.kernel->train(w.block, w.visit), doctest::Contains("has count -1 in topic 2"),
                         std::invalid_argument);
  }
  SUBCASE("huge") {
    w.block = w.edited(w.block, 2, [](std::int32_t* row) { row[0] = 2'000'000'000; });
    CHECK_THROWS_WITH_AS(w.kernel->train(w.block, w.visit),
                         doctest::Contains("holds 2000000000 tokens; its word has 4 in the corpus, 4 of them still to add here"),
                         std::invalid_argument);
  }
  SUBCASE("more than the other workers can have added") {
    w.block = w.edited(w.block, 3, [](std::int32_t* row) { row[1] = 1; });  // word 3's two tokens are all this worker's
    CHECK_THROWS_WITH_AS(w.kernel->train(w.block, w.visit), doctest::Contains("holds 1 tokens; its word has 2"),
                         std::invalid_argument);
  }
  SUBCASE("an empty block is what the first phase starts from") {
    CHECK_NOTHROW(w.kernel->train(w.block, w.visit));
  }
}

TEST_CASE("in a sampling phase, a row must hold its word's tokens exactly, and each topic at least this worker's") {
  SoloWorker w;
  w.kernel->train(w.block, w.visit);  // builds the counts: every token of the corpus is here
  w.kernel->take_phase_sums(rotation::PhaseKind::kTrain);
  w.visit.phase = 1;
  SUBCASE("the block as the first phase left it is sampled") {
    CHECK_NOTHROW(w.kernel->train(w.block, w.visit));
  }
  SUBCASE("the same counts packed dense are sampled") {
    auto b = w.edited(w.block, 0, [](std::int32_t*) {});
    CHECK_NOTHROW(w.kernel->train(b, w.visit));
  }
  SUBCASE("huge") {
    // Sampling would size the others' share from it.
    auto b = w.edited(w.block, 0, [](std::int32_t* row) { row[1] += 1'000'000'000; });
    CHECK_THROWS_WITH_AS(w.kernel->train(b, w.visit), doctest::Contains("tokens; its word has 3 in the corpus"),
                         std::invalid_argument);
  }
  // A packed block's negative count is refused as the block is read, before any total is
  // taken; a dense block's (a summed replica of the allreduce model) by the checks on totals.
  const auto negative_right_total = [](std::int32_t* row) {
    row[1] += row[0] + 5;
    row[0] = -5;
  };
  SUBCASE("negative, with the right total") {
    auto b = w.edited(w.block, 2, negative_right_total);
    CHECK_THROWS_WITH_AS(w.kernel->train(b, w.visit), doctest::Contains("has count -5 in topic 0"),
                         std::invalid_argument);
  }
  SUBCASE("negative, with the right total, dense") {
    auto b = w.dense_edited(w.block, 2, negative_right_total);
    CHECK_THROWS_WITH_AS(w.kernel->train(b, w.visit),
                         doctest::Contains("counts fewer tokens of a topic than this worker holds in it"),
                         std::invalid_argument);
  }
  const auto negative_other_total = [](std::int32_t* row) { row[0] -= 100; };
  SUBCASE("negative, and so another total") {
    auto b = w.edited(w.block, 2, negative_other_total);
    CHECK_THROWS_WITH_AS(w.kernel->train(b, w.visit), doctest::Contains("in topic 0"), std::invalid_argument);
  }
  SUBCASE("negative, and so another total, dense") {
    auto b = w.dense_edited(w.block, 2, negative_other_total);
    CHECK_THROWS_WITH_AS(w.kernel->train(b, w.visit), doctest::Contains("its word has 4 in the corpus"),
                         std::invalid_argument);
  }
  SUBCASE("the right total, but fewer of a topic than this worker holds in it") {
    auto b = w.edited(w.block, 2, [](std::int32_t* row) {
      const std::uint32_t from = row[0] > 0 ? 0 : row[1] > 0 ? 1 : 2;  // a topic with tokens here
      --row[from];
      ++row[(from + 1) % 3];
    });
    CHECK_THROWS_WITH_AS(w.kernel->train(b, w.visit),
                         doctest::Contains("counts fewer tokens of a topic than this worker holds in it"),
                         std::invalid_argument);
  }
}

namespace {

// What worker 0, the driver and rank 1 are told when rank 1 sends worker 0 the block of its
// step-1 visit as `words` (made from the block's plan shape) or as a dense row with a negative
// count. Workers 0 (real) and 1 (the test's), the scheduler on rank 2; rank 1 takes part in
// the topic-totals allreduce that follows worker 0's step-0 visit.
struct ToldOfBadBlock {
  std::string at_worker, at_driver;
  std::optional<std::string> at_sender;
  model::BlockId block = 0;
};

template <class B>
ToldOfBadBlock send_bad_block(const std::function<Buffer(const model::BlockShape&)>& words) {
  const auto corpus = tiny_corpus();
  const auto plan = lda::plan_job(one_epoch_config(2), 4, data::count_words(std::span(&corpus, 1)));
  const auto layout = plan.block_shapes;
  auto groups = B::make(3);
  auto worker = std::async(std::launch::async, [&] {
    return gyre::test::job_failure([&] {
      auto kernel = lda::make_kernel(plan, 0, corpus);
      rotation::WorkerOptions o;
      o.scheduler_rank = 2;
      o.timeout = 20s;
      runtime::Mailbox mailbox(*groups[0]);
      rotation::WorkerEngine(mailbox, *plan.schedule, layout, *kernel, o).run(lda::initial_blocks(plan, 0));
    });
  });
  auto driver = std::async(std::launch::async, [&] {
    return gyre::test::job_failure([&] {
      runtime::Mailbox mailbox(*groups[2]);
      rotation::RotationDriver(mailbox, {0, 1}, 20s).run(lda::epoch_policy(plan, {}));
    });
  });

  const rotation::Visit v = plan.schedule->visits(0, 0).at(1);
  const model::BlockShape shape = layout[v.block];
  Buffer body = words(shape);
  const std::size_t bytes = body.size();
  net::Message m = rotation::encode_block(
      model::Block::packed(v.block, shape.rows, std::max(bytes, shape.max_bytes), std::move(body)), v.seq);
  groups[1]->send(0, std::move(m));
  ToldOfBadBlock told;
  told.block = v.block;
  {
    runtime::Mailbox inbox(*groups[1]);
    collective::Communicator workers(inbox, {0, 1}, {20s});
    std::vector<std::int64_t> none(plan.config.topics, 0);
    try {
      workers.allreduce_sum(std::span<std::int64_t>(none));
      // The mailbox hands out no notice: waiting on it for anything ends in the JobFailed.
      (void)inbox.receive([](const net::Message&) { return false; }, net::Clock::now() + 20s);
    } catch (const runtime::JobFailed& e) {
      told.at_sender = e.what();  // also when the notice came while the allreduce still waited
    }
  }
  told.at_worker = worker.get();
  told.at_driver = driver.get();
  return told;
}

// `rows` rows: row 0 as given (words after its head included), the others empty.
Buffer first_row_then_empty(std::size_t rows, std::vector<std::uint32_t> row0) {
  for (std::size_t r = 1; r < rows; ++r) row0.push_back(0);
  Buffer out(row0.size() * sizeof(std::uint32_t));
  std::memcpy(out.data(), row0.data(), out.size());
  return out;
}

// `what`: what every member is told after "block B from rank 1".
void check_every_member_told(const ToldOfBadBlock& told, const std::string& what) {
  const std::string expected = "block " + std::to_string(told.block) + " from rank 1" + what;
  CHECK_MESSAGE(told.at_worker.find(expected) != std::string::npos, told.at_worker);
  CHECK_MESSAGE(told.at_driver.find(expected) != std::string::npos, told.at_driver);
  REQUIRE(told.at_sender.has_value());
  CHECK_MESSAGE(told.at_sender->find(expected) != std::string::npos, *told.at_sender);
}

}  // namespace

TEST_CASE_TEMPLATE("a worker engine names the rank a block with bad counts came from", B, GYRE_TEST_BACKENDS) {
  const ToldOfBadBlock told = send_bad_block<B>([](const model::BlockShape& shape) {
    const std::vector<std::uint32_t> dense_row{lda::kDenseRow, static_cast<std::uint32_t>(-7), 0, 0};
    return first_row_then_empty(shape.rows, dense_row);
  });
  check_every_member_told(told, ": word-topic row 0 has count -7");
}

TEST_CASE_TEMPLATE("a block whose packed rows lie fails the job everywhere, naming its sender", B, GYRE_TEST_BACKENDS) {
  // K = 3. Each lie is in the first row of the block rank 1 sends; the receiver is in the
  // initialising phase, so a row may hold at most its word's tokens less worker 0's. The
  // block's words have 2 to 4 tokens, so the plan bounds a row at 5 words, and a longer lie is
  // refused by its length alone (the last subcase).
  struct Lie {
    const char* name;
    std::vector<std::uint32_t> row0;
    const char* told;
  };
  const std::vector<Lie> lies{
      {"a topic not below K", {1, 3, 1}, "word-topic row 0 names topic 3; there are 3"},
      {"topics out of order", {2, 1, 0, 1, 1}, "word-topic row 0 lists topic 0 after topic 1"},
      {"a topic twice", {2, 1, 1, 1, 1}, "word-topic row 0 lists topic 1 after topic 1"},
      {"a zero count", {1, 2, 0}, "word-topic row 0 has count 0 in topic 2"},
      {"a negative count", {1, 2, static_cast<std::uint32_t>(-4)}, "word-topic row 0 has count -4 in topic 2"},
      {"more tokens than the word has", {1, 0, 1000}, "word-topic row 0 holds 1000 tokens"},
      {"more topics than K", {7}, "word-topic row 0 opens with 7"},
  };
  for (const Lie& lie : lies) {
    CAPTURE(lie.name);
    check_every_member_told(
        send_bad_block<B>([&](const model::BlockShape& shape) { return first_row_then_empty(shape.rows, lie.row0); }),
        std::string(": ") + lie.told);
  }
  SUBCASE("a row that runs past the end of the block") {
    check_every_member_told(send_bad_block<B>([](const model::BlockShape&) { return first_row_then_empty(1, {2, 0}); }),
                            ": word-topic row 0 runs past the end of the block");
  }
  SUBCASE("words after the last row") {
    check_every_member_told(send_bad_block<B>([](const model::BlockShape& shape) {
                              return first_row_then_empty(shape.rows, {0, 0});
                            }),
                            ": word-topic block of 2 rows has 1 words after its last row");
  }
  SUBCASE("more bytes than the plan allows the block") {
    std::size_t sent = 0;
    const auto told = send_bad_block<B>([&](const model::BlockShape& shape) {
      sent = shape.max_bytes + 4;
      return Buffer(sent);
    });
    check_every_member_told(told, " carries " + std::to_string(sent) + " bytes for its 2 packed rows");
  }
}

TEST_CASE_TEMPLATE("allreduce model: summed changes that do not fit the corpus fail the job, naming the block", B,
                   GYRE_TEST_BACKENDS) {
  // Worker 0 (real) and 1 (the test's), the scheduler on rank 2. In the initialising phase
  // rank 1 takes part in the sum of block 0's changes with one that breaks row 0: a token too
  // many, or so many fewer that the count wraps negative.
  const auto corpus = tiny_corpus();
  auto c = one_epoch_config(2);
  c.model = lda::ComputationModel::kAllreduce;
  const auto plan = lda::plan_job(c, 4, data::count_words(std::span(&corpus, 1)));
  const auto shards = data::shard_corpus(corpus, 2);
  const auto stride = model::padded_width(plan.config.topics);
  for (const std::uint32_t bad : {1u, 0x80000000u}) {
    CAPTURE(bad);
    auto groups = B::make(3);
    auto worker = std::async(std::launch::async, [&]() -> std::string {
      try {
        auto kernel = lda::make_kernel(plan, 0, shards[0]);
        runtime::Mailbox mailbox(*groups[0]);
        lda::run_allreduce_worker(plan, 0, *kernel, mailbox, 20s);
      } catch (const std::exception& e) {
        return e.what();
      }
      return "the worker ended without a failure";
    });
    auto driver = std::async(std::launch::async, [&] {
      return gyre::test::job_failure([&] {
        runtime::Mailbox mailbox(*groups[2]);
        rotation::RotationDriver(mailbox, {0, 1}, 20s).run(lda::epoch_policy(plan, {}));
      });
    });
    std::optional<std::string> told;
    {
      runtime::Mailbox inbox(*groups[1]);
      collective::Communicator workers(inbox, {0, 1}, {20s});
      std::vector<std::uint32_t> change(plan.blocks.rows[0].size() * stride, 0);
      change[0] = bad;
      try {
        workers.allreduce_sum(std::span<std::uint32_t>(change));
        (void)inbox.receive([](const net::Message&) { return false; }, net::Clock::now() + 20s);
      } catch (const runtime::JobFailed& e) {
        told = e.what();
      }
    }
    const std::string expected = "word-topic block 0 after summing the workers' changes: word-topic row 0 ";
    const std::string at_worker = worker.get();
    CHECK_MESSAGE(at_worker.find(expected) != std::string::npos, at_worker);
    CHECK_MESSAGE(at_worker.find(bad == 1 ? "tokens; its word has" : "has count -") != std::string::npos, at_worker);
    const std::string at_driver = driver.get();
    CHECK_MESSAGE(at_driver.find(expected) != std::string::npos, at_driver);
    REQUIRE(told.has_value());
    CHECK_MESSAGE(told->find(expected) != std::string::npos, *told);
  }
}
