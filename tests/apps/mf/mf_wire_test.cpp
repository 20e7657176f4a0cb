// tests/apps/mf/mf_wire_test.cpp — two MF ranks whose plans differ (biases on one only, or other data): blocks of the wrong shape fail the job naming the sender, no crash.
#include <doctest/doctest.h>

#include <functional>
#include <future>

#include "gyre/data/planted_ratings.hpp"
#include "gyre/rotation/rotation_driver.hpp"
#include "gyre/rotation/worker_engine.hpp"
#include "lib/net/backends.hpp"
#include "mf/trainer.hpp"
#include "support/job_failure.hpp"

using namespace gyre;
using namespace std::chrono_literals;

namespace {

data::PlantedRatings planted(std::uint32_t items, std::uint64_t seed) {
  data::PlantedRatingsOptions o;
  o.users = 200;
  o.items = items;
  o.ratings = 4000;
  o.rank = 4;
  o.test_fraction = 0;
  o.seed = seed;
  return data::generate_planted_ratings(o);
}

mf::MfConfig sgd_config(bool biases) {
  mf::MfConfig c;
  c.rank = 4;
  c.workers = 2;
  c.epochs = 3;
  c.biases = biases;
  // Plain SGD, where --biases alone decides a row's width. Under AdaGrad every row has the
  // tail, so one rank's --biases does not show in the blocks' shape; the job's settings check
  // at the rendezvous (mismatched_ranks_test) is what refuses it there.
  c.update = mf::UpdateRule::kSgd;
  c.learning_rate = mf::kSgdRate;
  return c;
}

// What one process of a multi-process MF job builds from its own flags and data (as
// train_distributed does): the plan, its kernel, its blocks and the layout it checks with.
struct Rank {
  mf::MfPlan plan;
  std::unique_ptr<mf::MfKernel> kernel;
  Rank(const mf::MfConfig& c, const data::PlantedRatings& p, int rank)
      : plan(mf::plan_job(c, mf::shard_by_user(p.train, 2), p.test)),
        kernel(mf::make_kernel(plan, mf::shard_by_user(p.train, 2)[static_cast<std::size_t>(rank)],
                               plan.test_shards[static_cast<std::size_t>(rank)])) {}
};

// Ranks 0 and 1 run real engines, each with its own plan, the driver (rank 2) rank 0's policy.
// Returns every part's JobFailed text.
template <class B>
std::vector<std::string> run_mismatched(const Rank& r0, const Rank& r1) {
  auto groups = B::make(3);
  std::vector<std::future<std::string>> parts;
  for (const Rank* r : {&r0, &r1}) {
    const int rank = r == &r0 ? 0 : 1;
    parts.push_back(std::async(std::launch::async, [&, r, rank] {
      return gyre::test::job_failure([&] {
        rotation::WorkerOptions o;
        o.scheduler_rank = 2;
        o.timeout = 20s;
        runtime::Mailbox mailbox(*groups[static_cast<std::size_t>(rank)]);
        rotation::WorkerEngine engine(mailbox, *r->plan.schedule,
                                      r->plan.blocks.shapes(r->plan.layout.stride), *r->kernel, o);
        engine.run(mf::initial_blocks(r->plan, rank));
      });
    }));
  }
  parts.push_back(std::async(std::launch::async, [&] {
    return gyre::test::job_failure([&] {
      runtime::Mailbox mailbox(*groups[2]);
      rotation::RotationDriver(mailbox, {0, 1}, 20s).run(mf::epoch_control(r0.plan, {}).policy);
    });
  }));
  std::vector<std::string> out;
  for (auto& p : parts) out.push_back(p.get());
  return out;
}

}  // namespace

TEST_CASE_TEMPLATE("--biases on one rank only: its item blocks are refused as another shape, naming it", B,
                   GYRE_TEST_BACKENDS) {
  const auto data = planted(60, 1);
  const Rank plain(sgd_config(false), data, 0), biased(sgd_config(true), data, 1);
  const auto errors = run_mismatched<B>(plain, biased);
  // Whichever rank's refusal came first, it names the other as the sender: strides 8 and 16.
  for (const auto& e : errors) {
    CAPTURE(e);
    const auto has = [&](const char* text) { return e.find(text) != std::string::npos; };
    const bool at_0 = has("from rank 1 has") && has("rows of 16 floats; the plan here has");
    const bool at_1 = has("from rank 0 has") && has("rows of 8 floats; the plan here has");
    CHECK((at_0 || at_1));
  }
}

TEST_CASE_TEMPLATE("ranks given other data: blocks of other row counts are refused, naming the sender", B,
                   GYRE_TEST_BACKENDS) {
  const Rank small(sgd_config(false), planted(60, 1), 0), large(sgd_config(false), planted(90, 2), 1);
  const auto errors = run_mismatched<B>(small, large);
  for (const auto& e : errors) {
    CAPTURE(e);
    CHECK((e.find("from rank 1 has") != std::string::npos || e.find("from rank 0 has") != std::string::npos));
    CHECK(e.find("; the plan here has") != std::string::npos);
  }
}
