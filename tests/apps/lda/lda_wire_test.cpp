// tests/apps/lda/lda_wire_test.cpp — word-topic blocks (rotating, or summed replicas) with negative, huge or inconsistent counts are refused before the kernel sizes anything from them.
#include <doctest/doctest.h>

#include <cstring>
#include <future>
#include <optional>

#include "gyre/data/corpus.hpp"
#include "gyre/net/inproc.hpp"
#include "gyre/pipeline/block_codec.hpp"
#include "gyre/pipeline/worker_engine.hpp"
#include "gyre/scheduler/rotation_driver.hpp"
#include "gyre/data/corpus_partition.hpp"
#include "lda/allreduce.hpp"
#include "lda/trainer.hpp"
#include "lib/net/backends.hpp"
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

model::Block copy_of(const model::Block& b) {
  model::Block c(b.id(), b.rows(), b.stride());
  std::memcpy(c.counts(), b.counts(), b.rows() * b.stride() * sizeof(std::int32_t));
  return c;
}

// One worker over the whole corpus: its kernel, attached to a communicator of one, and its block.
struct SoloWorker {
  data::Corpus corpus = tiny_corpus();
  lda::LdaPlan plan = lda::plan_job(one_epoch_config(1), 4, data::count_words(std::span(&corpus, 1)));
  std::unique_ptr<lda::LdaKernel> kernel = lda::make_kernel(plan, 0, corpus);
  std::vector<std::unique_ptr<net::Group>> groups = net::make_inproc_groups(1);
  runtime::Mailbox inbox{*groups[0]};
  collective::Communicator workers{inbox, {0}};
  model::Block block = std::move(lda::initial_blocks(plan, 0).front());
  scheduler::Visit visit{block.id(), 0, 0, 0, 0, scheduler::Visit::kKeep};

  SoloWorker() { kernel->attach(workers); }
  // Row r of the block is word plan.blocks.rows[0][r].
  std::int32_t* row_of_word(model::Block& b, std::uint32_t word) {
    return b.counts() + plan.blocks.row_of[word] * b.stride();
  }
};

}  // namespace

TEST_CASE("while the first phase builds the counts, a row with a negative count or more tokens than its word is refused") {
  SoloWorker w;
  SUBCASE("negative") {
    w.row_of_word(w.block, 1)[2] = -1;
    CHECK_THROWS_WITH_AS(w.kernel->train(w.block, w.visit), doctest::Contains("has count -1 in topic 2"),
                         std::invalid_argument);
  }
  SUBCASE("huge") {
    w.row_of_word(w.block, 2)[0] = 2'000'000'000;
    CHECK_THROWS_WITH_AS(w.kernel->train(w.block, w.visit),
                         doctest::Contains("holds 2000000000 tokens; its word has 4 in the corpus, 4 of them still to add here"),
                         std::invalid_argument);
  }
  SUBCASE("more than the other workers can have added") {
    w.row_of_word(w.block, 3)[1] = 1;  // word 3's two tokens are all this worker's
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
  w.kernel->take_phase_sums(scheduler::PhaseKind::kTrain);
  w.visit.phase = 1;
  SUBCASE("the block as the first phase left it is sampled") {
    auto b = copy_of(w.block);
    CHECK_NOTHROW(w.kernel->train(b, w.visit));
  }
  SUBCASE("huge") {
    auto b = copy_of(w.block);
    w.row_of_word(b, 0)[1] += 1'000'000'000;  // sampling would size the others' share from it
    CHECK_THROWS_WITH_AS(w.kernel->train(b, w.visit), doctest::Contains("tokens; its word has 3 in the corpus"),
                         std::invalid_argument);
  }
  SUBCASE("negative, with the right total") {
    auto b = copy_of(w.block);
    std::int32_t* row = w.row_of_word(b, 2);
    row[1] += row[0] + 5;
    row[0] = -5;
    CHECK_THROWS_WITH_AS(w.kernel->train(b, w.visit),
                         doctest::Contains("counts fewer tokens of a topic than this worker holds in it"),
                         std::invalid_argument);
  }
  SUBCASE("negative, and so another total") {
    auto b = copy_of(w.block);
    w.row_of_word(b, 2)[0] -= 100;
    CHECK_THROWS_WITH_AS(w.kernel->train(b, w.visit), doctest::Contains("its word has 4 in the corpus"),
                         std::invalid_argument);
  }
  SUBCASE("the right total, but fewer of a topic than this worker holds in it") {
    auto b = copy_of(w.block);
    std::int32_t* row = w.row_of_word(b, 2);
    const std::uint32_t from = row[0] > 0 ? 0 : row[1] > 0 ? 1 : 2;  // a topic with tokens here
    --row[from];
    ++row[(from + 1) % 3];
    CHECK_THROWS_WITH_AS(w.kernel->train(b, w.visit),
                         doctest::Contains("counts fewer tokens of a topic than this worker holds in it"),
                         std::invalid_argument);
  }
}

TEST_CASE_TEMPLATE("a worker engine names the rank a block with bad counts came from", B, GYRE_TEST_BACKENDS) {
  // Workers 0 (real) and 1 (the test's), the scheduler on rank 2. Rank 1 sends worker 0 the
  // block of its step-1 visit, in the plan's shape but with a negative count, and takes part in
  // the topic-totals allreduce that follows worker 0's step-0 visit.
  const auto corpus = tiny_corpus();
  const auto plan = lda::plan_job(one_epoch_config(2), 4, data::count_words(std::span(&corpus, 1)));
  const auto layout = plan.blocks.shapes(model::padded_width(plan.config.topics));
  auto groups = B::make(3);
  auto worker = std::async(std::launch::async, [&] {
    return gyre::test::job_failure([&] {
      auto kernel = lda::make_kernel(plan, 0, corpus);
      pipeline::WorkerOptions o;
      o.scheduler_rank = 2;
      o.timeout = 20s;
      runtime::Mailbox mailbox(*groups[0]);
      pipeline::WorkerEngine(mailbox, *plan.schedule, layout, *kernel, o).run(lda::initial_blocks(plan, 0));
    });
  });
  auto driver = std::async(std::launch::async, [&] {
    return gyre::test::job_failure([&] {
      runtime::Mailbox mailbox(*groups[2]);
      scheduler::RotationDriver(mailbox, {0, 1}, 20s).run(lda::epoch_policy(plan, {}));
    });
  });

  const scheduler::Visit v = plan.schedule->visits(0, 0).at(1);
  const model::BlockShape shape = layout[v.block];
  model::Block bad(v.block, shape.rows, shape.stride);
  bad.counts()[0] = -7;
  groups[1]->send(0, pipeline::encode_block(std::move(bad), v.seq));
  std::optional<std::string> told;
  {
    runtime::Mailbox inbox(*groups[1]);
    collective::Communicator workers(inbox, {0, 1}, {20s});
    std::vector<std::int64_t> none(plan.config.topics, 0);
    try {
      workers.allreduce_sum(std::span<std::int64_t>(none));
      // The mailbox hands out no notice: waiting on it for anything ends in the JobFailed.
      (void)inbox.receive([](const net::Message&) { return false; }, net::Clock::now() + 20s);
    } catch (const runtime::JobFailed& e) {
      told = e.what();  // also when the notice came while the allreduce still waited
    }
  }
  const std::string expected = "block " + std::to_string(v.block) + " from rank 1: word-topic row 0 has count -7";
  const std::string at_worker = worker.get();
  CHECK_MESSAGE(at_worker.find(expected) != std::string::npos, at_worker);
  const std::string at_driver = driver.get();
  CHECK_MESSAGE(at_driver.find(expected) != std::string::npos, at_driver);
  REQUIRE(told.has_value());
  CHECK_MESSAGE(told->find(expected) != std::string::npos, *told);
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
        scheduler::RotationDriver(mailbox, {0, 1}, 20s).run(lda::epoch_policy(plan, {}));
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
