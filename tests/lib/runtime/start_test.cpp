// tests/lib/runtime/start_test.cpp — every engine started in the background through one runtime::start(): results, cancel, a hung kernel abandoned.
#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <memory>
#include <string>
#include <numeric>
#include <thread>

#include "gyre/mapreduce/mapreduce.hpp"
#include "gyre/ps/ps_job.hpp"
#include "gyre/rotation/rotation_job.hpp"
#include "gyre/rounds/rounds.hpp"
#include "lib/net/backends.hpp"
#include "support/multiprocess.hpp"

using namespace gyre;
using namespace std::chrono_literals;
using rotation::PhaseKind;
using rotation::Visit;

namespace {

// Counts its visits; sleeps `hang` in one visit of worker 0 (phase 1), and `pause` in every visit.
struct StartedKernel final : rotation::RotationKernel {
  std::atomic<int>* visits = nullptr;
  std::chrono::milliseconds pause{0};
  std::chrono::milliseconds hang{0};
  int rank = 0;
  void train(model::Block& b, const Visit& v) override {
    if (rank == 0 && v.phase == 1 && v.step == 0) std::this_thread::sleep_for(hang);
    std::this_thread::sleep_for(pause);
    b.row(0)[0] += 1.0f;
    ++*visits;
  }
  void evaluate(const model::Block&, const Visit&) override {}
  rotation::PhaseSums take_phase_sums(PhaseKind) override { return {}; }
};

// What a rotation program owns, so that an abandoned job's thread never outlives it: the
// kernels, the schedule and the count of visits.
struct RotationRun {
  static constexpr int kWorkers = 3;
  rotation::RotationSchedule schedule{kWorkers, 2, rotation::RingOrder::kFixed, 5};
  std::vector<StartedKernel> kernels = std::vector<StartedKernel>(kWorkers);
  std::atomic<int> visits{0};
  std::optional<int> phases;  // train this many phases; nullopt: until cancelled
  rotation::EmbeddedJobOptions options;

  RotationRun() {
    for (int w = 0; w < kWorkers; ++w) {
      kernels[static_cast<std::size_t>(w)].rank = w;
      kernels[static_cast<std::size_t>(w)].visits = &visits;
    }
    options.timeout = 20s;
  }

  std::vector<std::vector<model::OwnedBlock>> operator()(const runtime::Job& job) {
    std::vector<rotation::EmbeddedWorker> workers(kWorkers);
    for (int w = 0; w < kWorkers; ++w) {
      workers[static_cast<std::size_t>(w)].kernel = &kernels[static_cast<std::size_t>(w)];
      for (auto id : schedule.held_at_start(w, 0)) workers[static_cast<std::size_t>(w)].initial_blocks.emplace_back(id, 1, 8);
    }
    int started = 0;
    auto policy = [&](const rotation::PhaseResult*) -> std::optional<PhaseKind> {
      if (phases && started >= *phases) return std::nullopt;
      ++started;
      return PhaseKind::kTrain;
    };
    return rotation::run_embedded(job, schedule, std::move(workers), policy, options);
  }
};

template <class B>
runtime::Job rotation_job_on() {
  return rotation::rotation_job(RotationRun::kWorkers, B::runtime_backend());
}

// Waits (bounded) until `count` reaches `at_least`: the job is running its kernels.
void wait_for_progress(const std::atomic<int>& count, int at_least) {
  const auto give_up = std::chrono::steady_clock::now() + 20s;
  while (count.load() < at_least && std::chrono::steady_clock::now() < give_up) std::this_thread::sleep_for(1ms);
  REQUIRE(count.load() >= at_least);
}

// Cancels a running handle and checks it ends promptly with cause kCancelled.
template <class Handle>
void cancel_and_check(Handle& handle) {
  const auto asked = std::chrono::steady_clock::now();
  handle.cancel();
  REQUIRE(handle.wait_for(10s));
  CHECK(std::chrono::steady_clock::now() - asked < 5s);
  try {
    handle.wait();
    FAIL("a cancelled job returned");
  } catch (const runtime::JobFailed& e) {
    CHECK(e.cause() == runtime::FailureCause::kCancelled);
  }
}

}  // namespace

TEST_CASE_TEMPLATE("start(): a rotation job in the background returns the engine's result from wait()", B, GYRE_TEST_BACKENDS) {
  auto run = std::make_shared<RotationRun>();
  run->phases = 3;
  auto handle = runtime::start(rotation_job_on<B>(), [run](const runtime::Job& job) { return (*run)(job); });
  auto held = handle.wait();
  REQUIRE(held.size() == RotationRun::kWorkers);
  float total = 0;
  for (auto& worker : held)
    for (auto& block : worker) total += (*block).row(0)[0];
  // Every block is visited once per worker per phase.
  CHECK(total == doctest::Approx(3.0 * RotationRun::kWorkers * run->schedule.blocks()));
  CHECK(run->visits.load() == 3 * RotationRun::kWorkers * run->schedule.blocks());
}

TEST_CASE_TEMPLATE("cancel() stops a rotation job at its next visit, not after the visits queued", B, GYRE_TEST_BACKENDS) {
  auto run = std::make_shared<RotationRun>();
  for (auto& k : run->kernels) k.pause = 5ms;
  auto handle = runtime::start(rotation_job_on<B>(), [run](const runtime::Job& job) { return (*run)(job); });
  wait_for_progress(run->visits, 10);
  const int at_cancel = run->visits.load();
  cancel_and_check(handle);
  // At most the visit each worker was in when the cancel came.
  CHECK(run->visits.load() <= at_cancel + RotationRun::kWorkers);
}

TEST_CASE_TEMPLATE("a kernel hung past its visit deadline is abandoned: the handle returns within the deadline and grace",
                   B, GYRE_TEST_BACKENDS) {
  auto run = std::make_shared<RotationRun>();
  run->kernels[0].hang = 4s;
  run->options.visit_deadline = 200ms;
  run->options.timeout = 30s;
  runtime::StartOptions start;
  start.grace = 300ms;
  const auto began = std::chrono::steady_clock::now();
  auto handle = runtime::start(rotation_job_on<B>(), [run](const runtime::Job& job) { return (*run)(job); }, start);
  REQUIRE(handle.wait_for(3s));
  CHECK(std::chrono::steady_clock::now() - began < 3s);
  try {
    handle.wait();
    FAIL("a job with a hung kernel returned");
  } catch (const runtime::JobFailed& e) {
    CHECK(e.cause() == runtime::FailureCause::kTimeout);
    CHECK_MESSAGE(std::string(e.what()).find("past the visit deadline of 200 ms") != std::string::npos, e.what());
  }
  // The abandoned job's threads end once the kernel returns, owning what they use.
  CHECK(handle.join_for(20s));
}

TEST_CASE_TEMPLATE("cancel() during a hung visit returns within the grace", B, GYRE_TEST_BACKENDS) {
  auto run = std::make_shared<RotationRun>();
  run->kernels[0].hang = 4s;
  run->options.visit_deadline = 0ms;  // no deadline: only the cancel stops it
  runtime::StartOptions start;
  start.grace = 200ms;
  auto handle = runtime::start(rotation_job_on<B>(), [run](const runtime::Job& job) { return (*run)(job); }, start);
  wait_for_progress(run->visits, RotationRun::kWorkers);  // phase 0 is under way; worker 0 soon hangs in phase 1
  std::this_thread::sleep_for(300ms);
  const auto asked = std::chrono::steady_clock::now();
  handle.cancel();
  REQUIRE(handle.wait_for(2s));
  CHECK(std::chrono::steady_clock::now() - asked < 2s);
  CHECK_THROWS_AS(handle.wait(), runtime::JobFailed);
  CHECK(handle.join_for(20s));
}

TEST_CASE_TEMPLATE("cancel() stops a rounds job whose app would never stop", B, GYRE_TEST_BACKENDS) {
  struct Shard {
    void apply(std::span<const rounds::Step>) {}
    std::vector<double> push(const rounds::Task& t) { return std::vector<double>(t.params.size(), 1.0); }
  };
  struct Forever {
    std::atomic<int>* pulled;
    rounds::Next schedule() { return rounds::Next::send(rounds::Task{0, 0.0, {0, 1}}); }
    rounds::Task check_task() { return {}; }
    std::size_t partial_size(const rounds::Task& t) { return t.params.size(); }
    std::vector<rounds::Step> pull(const rounds::Task&, std::span<const double>) {
      ++*pulled;
      return {};
    }
    int depth() { return 2; }
  };
  auto pulled = std::make_shared<std::atomic<int>>(0);
  rounds::RoundsOptions options;
  options.timeout = 20s;
  options.limits.params = 2;
  auto handle = runtime::start(rounds::rounds_job(2, B::runtime_backend()), [pulled, options](const runtime::Job& job) {
    rounds::run_rounds_job(
        job, options, [](int) { return Shard{}; },
        [&](rounds::RoundsDriver& driver) {
          Forever app{pulled.get()};
          rounds::run_rounds(driver, app);
        });
  });
  wait_for_progress(*pulled, 20);
  cancel_and_check(handle);
}

TEST_CASE_TEMPLATE("cancel() stops a parameter-server job and a peer-to-peer job mid-run", B, GYRE_TEST_BACKENDS) {
  using namespace ps;
  auto steps = std::make_shared<std::atomic<int>>(0);
  // One program that never stops, for both engines.
  Program p;
  p.push = [steps](Worker&, std::span<const Key> keys) {
    ++*steps;
    KeyValues updates;
    for (auto k : keys) updates.emplace_back(k, Value(1, 1.0));
    return updates;
  };
  p.stop = [](Worker&) { return false; };
  SUBCASE("parameter server") {
    PsLayout l;
    l.workers = 2;
    l.servers = 1;
    l.keys = 4;
    l.value_size = 1;
    PsJobOptions o;
    o.timeout = 20s;
    auto handle = runtime::start(ps_job(l, B::runtime_backend()), [=](const runtime::Job& job) { return run_ps(job, l, p, o); });
    wait_for_progress(*steps, 20);
    cancel_and_check(handle);
  }
  SUBCASE("peer to peer") {
    ps::p2p::P2pLayout l;
    l.peers = 3;
    l.keys = 6;
    ps::p2p::P2pJobOptions o;
    o.timeout = 20s;
    auto handle = runtime::start(ps::p2p::p2p_job(l, B::runtime_backend()),
                                 [=](const runtime::Job& job) { return ps::p2p::run_p2p(job, l, p, o); });
    wait_for_progress(*steps, 20);
    cancel_and_check(handle);
  }
}

TEST_CASE_TEMPLATE("cancel() stops a map-reduce job between its collectives", B, GYRE_TEST_BACKENDS) {
  auto sums = std::make_shared<std::atomic<int>>(0);
  runtime::Job job;
  job.workers = 3;
  job.backend = B::runtime_backend();
  auto handle = runtime::start(job, [sums](const runtime::Job& j) {
    mapreduce::run(j, [&](mapreduce::Context& ctx) {
      for (;;) {
        ctx.sum(1);
        ++*sums;
      }
    });
  });
  wait_for_progress(*sums, 30);
  cancel_and_check(handle);
}

// Issue 39: across processes a cancel tells the other processes why before it closes the links,
// so that they fail as cancelled, naming the rank that cancelled, not as having lost a peer.
TEST_CASE("across processes, cancel() in one process fails the others as cancelled, naming its rank") {
  const std::uint16_t port = gyre::test::free_port();
  const auto job_in = [port](int process) {
    runtime::ProcessesBackend p;
    p.launch = {process, 2, "flags"};
    p.coordinator = {"127.0.0.1", port};
    p.token = "test-token";
    p.connect_timeout = 20s;
    p.log = [](const std::string&) {};
    runtime::Job job;
    job.workers = 2;
    job.backend = p;
    return job;
  };
  auto sums = std::make_shared<std::atomic<int>>(0);
  const auto program = [sums](const runtime::Job& j) {
    mapreduce::run(j, [&](mapreduce::Context& ctx) {
      for (;;) {
        ctx.sum(1);
        ++*sums;
      }
    });
  };
  auto other = std::async(std::launch::async, [&]() -> std::string {
    try {
      program(job_in(1));
    } catch (const runtime::JobFailed& e) {
      return std::to_string(e.rank()) + " " + std::string(runtime::to_string(e.cause())) + ": " + e.what();
    }
    return "ended";
  });
  auto handle = runtime::start(job_in(0), program);
  wait_for_progress(*sums, 30);
  cancel_and_check(handle);
  REQUIRE(other.wait_for(20s) == std::future_status::ready);
  const std::string got = other.get();
  INFO("the other process ended with: ", got);
  CHECK(got.starts_with("0 cancelled: "));
  CHECK(got.find("rank 0: the job was cancelled") != std::string::npos);
}
