// tests/lib/rotation/engine_test.cpp — the worker engine under rotation: visits, ownership, versions, failures.
#include <doctest/doctest.h>

#include <oneapi/tbb/task_arena.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>

#include "gyre/rotation/rotation_job.hpp"
#include "gyre/wire/body.hpp"
#include "lib/net/backends.hpp"
#include "support/job_failure.hpp"

using namespace gyre;
using rotation::PhaseKind;
using rotation::RingOrder;
using rotation::Visit;

namespace {

// Counts visits and stamps each block row with the workers that touched it, so a test can tell
// lost or doubled updates from the block contents alone.
class CountingKernel final : public rotation::RotationKernel {
 public:
  explicit CountingKernel(int rank, std::atomic<int>* inside = nullptr, std::atomic<int>* max_inside = nullptr)
      : rank_(rank), inside_(inside), max_inside_(max_inside) {}
  void train(model::Block& b, const Visit&) override {
    if (inside_ != nullptr) {
      const int now = ++*inside_;
      int seen = max_inside_->load();
      while (now > seen && !max_inside_->compare_exchange_weak(seen, now)) {
      }
      std::this_thread::yield();
    }
    b.row(0)[static_cast<std::size_t>(rank_)] += 1.0f;  // one column per worker
    ++sums_[0];
    if (inside_ != nullptr) --*inside_;
  }
  void evaluate(const model::Block&, const Visit&) override { ++sums_[1]; }
  rotation::PhaseSums take_phase_sums(PhaseKind) override {
    auto s = sums_;
    sums_ = rotation::PhaseSums(2);
    return s;
  }
  std::function<void()> fail_on_train;

 private:
  int rank_;
  std::atomic<int>* inside_;
  std::atomic<int>* max_inside_;
  rotation::PhaseSums sums_ = rotation::PhaseSums(2);  // visits trained, evaluated
};

struct RunResult {
  std::vector<std::vector<model::OwnedBlock>> held;
  std::map<std::tuple<std::uint64_t, int, model::BlockId>, int> visits;  // (phase, worker, block) → count
  std::vector<rotation::PhaseResult> phases;
};

template <class Backend>
RunResult run_counting_kernels(int P, int d, RingOrder order, int epochs, model::OwnershipRegistry* registry,
                               int threads = 1, int in_flight = 0) {
  const rotation::RotationSchedule schedule(P, d, order, 11);
  std::vector<std::unique_ptr<CountingKernel>> kernels;
  std::vector<rotation::EmbeddedWorker> workers(static_cast<std::size_t>(P));
  for (int w = 0; w < P; ++w) {
    kernels.push_back(std::make_unique<CountingKernel>(w));
    workers[static_cast<std::size_t>(w)].kernel = kernels.back().get();
    for (auto id : schedule.held_at_start(w, 0)) workers[static_cast<std::size_t>(w)].initial_blocks.emplace_back(id, 1, 8 * ((P + 7) / 8));
  }
  RunResult result;
  std::mutex mutex;
  rotation::EmbeddedJobOptions options;
  options.registry = registry;
  options.threads_per_worker = threads;
  options.depth = in_flight;
  options.timeout = std::chrono::seconds(60);
  options.on_visit = [&](int w, const Visit& v) {
    std::lock_guard lock(mutex);
    ++result.visits[{v.phase, w, v.block}];
  };
  int phase = 0;
  auto policy = [&](const rotation::PhaseResult* last) -> std::optional<PhaseKind> {
    if (last != nullptr) result.phases.push_back(*last);
    if (phase >= 2 * epochs) return std::nullopt;
    return (phase++ % 2 == 0) ? PhaseKind::kTrain : PhaseKind::kEvaluate;  // train, evaluate, train, …
  };
  result.held = rotation::run_embedded(schedule, std::move(workers), policy, options, Backend::runtime_backend());
  return result;
}

}  // namespace

TEST_CASE_TEMPLATE("every (worker, block) pair is visited exactly once per phase, for several P, d and ring orders", B,
                   GYRE_TEST_BACKENDS) {
  for (RingOrder order : {RingOrder::kFixed, RingOrder::kRandom})
    for (int P : {1, 2, 3, 4})
      for (int d : {1, 2, 3}) {
        CAPTURE(P);
        CAPTURE(d);
        const int epochs = 3;
        auto r = run_counting_kernels<B>(P, d, order, epochs, nullptr);
        CHECK(r.visits.size() == static_cast<std::size_t>(2 * epochs * P * P * d));
        for (const auto& [key, count] : r.visits) CHECK(count == 1);
        // Train phases report P·P·d visits; evaluation phases the same number of reads.
        REQUIRE(r.phases.size() == static_cast<std::size_t>(2 * epochs));
        for (const auto& ph : r.phases)
          CHECK(ph.sums[ph.kind == PhaseKind::kTrain ? 0 : 1] == doctest::Approx(P * P * d));
        // The blocks come back, each updated exactly `epochs` times by every worker.
        std::set<model::BlockId> seen;
        for (auto& worker : r.held)
          for (auto& b : worker) {
            CHECK(seen.insert(b.id()).second);
            CHECK(b->version() == static_cast<std::uint64_t>(epochs * P));
            for (int w = 0; w < P; ++w) CHECK(b->row(0)[w] == doctest::Approx(epochs));
          }
        CHECK(seen.size() == static_cast<std::size_t>(P * d));
      }
}

TEST_CASE_TEMPLATE("the block count is apart from the depth: m blocks per worker, fewer in flight, each pair still once",
                   B, GYRE_TEST_BACKENDS) {
  for (int in_flight : {1, 2}) {
    CAPTURE(in_flight);
    const int P = 3, m = 4, epochs = 2;
    model::OwnershipRegistry registry(static_cast<std::size_t>(P * m));
    auto r = run_counting_kernels<B>(P, m, RingOrder::kRandom, epochs, &registry, 1, in_flight);
    CHECK(r.visits.size() == static_cast<std::size_t>(2 * epochs * P * P * m));
    for (const auto& [key, count] : r.visits) CHECK(count == 1);
    CHECK(registry.violations() == 0);
    std::size_t blocks = 0;
    for (auto& worker : r.held) blocks += worker.size();
    CHECK(blocks == static_cast<std::size_t>(P * m));
  }
}

TEST_CASE_TEMPLATE("no block ever has two owners at once", B, GYRE_TEST_BACKENDS) {
  for (int P : {2, 4})
    for (int d : {1, 2, 4}) {
      model::OwnershipRegistry registry(static_cast<std::size_t>(P * d));
      auto r = run_counting_kernels<B>(P, d, RingOrder::kRandom, 4, &registry);
      CHECK(registry.violations() == 0);
      // Each of the P·d blocks: one acquisition at the start and one per receipt over the wire.
      CHECK(registry.acquisitions() >= static_cast<std::uint64_t>(P * d));
      r.held.clear();
      for (std::size_t b = 0; b < registry.blocks(); ++b) CHECK(registry.owners(static_cast<model::BlockId>(b)) == 0);
    }
}

// A kernel that throws `error` in its second visit of block `block`, and a job of three workers
// that train until one fails, run on backend B (kAnyBlock: every block). Fails the test unless
// the job throws within 10 s; `rethrown` runs inside the catch, to rethrow and look at it.
constexpr model::BlockId kAnyBlock = ~model::BlockId{0};

template <class B, class Error>
void expect_kernel_failure(Error error, model::BlockId block, const std::function<void()>& rethrown) {
  const int P = 3;
  const rotation::RotationSchedule schedule(P, 1, RingOrder::kFixed, 1);
  struct Throwing final : rotation::RotationKernel {
    Error error;
    model::BlockId block;
    Throwing(Error e, model::BlockId b) : error(std::move(e)), block(b) {}
    void train(model::Block&, const Visit& v) override {
      if (v.step == 1 && (block == kAnyBlock || v.block == block)) throw error;
    }
    void evaluate(const model::Block&, const Visit&) override {}
    rotation::PhaseSums take_phase_sums(PhaseKind) override { return {}; }
  };
  std::vector<Throwing> kernels(P, Throwing(error, block));
  std::vector<rotation::EmbeddedWorker> workers(P);
  for (int w = 0; w < P; ++w) {
    workers[static_cast<std::size_t>(w)].kernel = &kernels[static_cast<std::size_t>(w)];
    for (auto id : schedule.held_at_start(w, 0)) workers[static_cast<std::size_t>(w)].initial_blocks.emplace_back(id, 1, 8);
  }
  rotation::EmbeddedJobOptions options;
  options.timeout = std::chrono::seconds(20);
  auto policy = [](const rotation::PhaseResult*) -> std::optional<PhaseKind> { return PhaseKind::kTrain; };
  const auto start = std::chrono::steady_clock::now();
  try {
    rotation::run_embedded(schedule, std::move(workers), policy, options, B::runtime_backend());
    FAIL("the job should have failed");
  } catch (...) {
    rethrown();
  }
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(10));
}

TEST_CASE_TEMPLATE("a kernel failure stops every worker and the scheduler with an error naming the worker", B,
                   GYRE_TEST_BACKENDS) {
  expect_kernel_failure<B>(std::runtime_error("disk on fire"), kAnyBlock, [] {
    try {
      throw;
    } catch (const runtime::JobFailed& e) {
      const std::string what = e.what();
      CHECK(what.find("worker ") != std::string::npos);
      CHECK(what.find("disk on fire") != std::string::npos);
    }
  });
}

// An embedder's kernel throwing its own exception type catches that type from the job, with its
// own text, on every backend a single process runs.
struct QuotaExceeded : std::runtime_error {
  using std::runtime_error::runtime_error;
};

TEST_CASE_TEMPLATE("in one process the kernel's own exception type reaches the embedder", B, GYRE_TEST_BACKENDS) {
  expect_kernel_failure<B>(QuotaExceeded("tenant 7 is over quota"), 2, [] {
    try {
      throw;
    } catch (const QuotaExceeded& e) {
      CHECK(std::string(e.what()) == "tenant 7 is over quota");
    }
  });
}

TEST_CASE("the update of one worker is serial even with several threads in its arena") {
  const int P = 2, d = 4;
  const rotation::RotationSchedule schedule(P, d, RingOrder::kFixed, 1);
  std::atomic<int> inside{0}, max_inside{0};
  std::vector<std::unique_ptr<CountingKernel>> kernels;
  std::vector<rotation::EmbeddedWorker> workers(P);
  std::vector<std::atomic<int>> in(P);
  for (int w = 0; w < P; ++w) {
    kernels.push_back(std::make_unique<CountingKernel>(w, &in[static_cast<std::size_t>(w)], &max_inside));
    workers[static_cast<std::size_t>(w)].kernel = kernels.back().get();
    for (auto id : schedule.held_at_start(w, 0)) workers[static_cast<std::size_t>(w)].initial_blocks.emplace_back(id, 1, 8);
  }
  rotation::EmbeddedJobOptions options;
  options.threads_per_worker = 2;
  int phases = 0;
  auto policy = [&](const rotation::PhaseResult*) -> std::optional<PhaseKind> {
    if (phases++ == 5) return std::nullopt;
    return PhaseKind::kTrain;
  };
  rotation::run_embedded(schedule, std::move(workers), policy, options);
  CHECK(max_inside.load() == 1);
  (void)inside;
}

TEST_CASE_TEMPLATE("a visit past the visit deadline fails the job naming the worker that ran it, not its waiting peers", B,
                   GYRE_TEST_BACKENDS) {
  const int P = 3;
  const rotation::RotationSchedule schedule(P, 1, RingOrder::kFixed, 1);
  // Worker 1's first visit of phase 1 hangs for a while; its peers soon wait for its block.
  struct Slow final : rotation::RotationKernel {
    int rank = 0;
    void train(model::Block&, const Visit& v) override {
      if (rank == 1 && v.phase == 1 && v.step == 0) std::this_thread::sleep_for(std::chrono::milliseconds(1500));
    }
    void evaluate(const model::Block&, const Visit&) override {}
    rotation::PhaseSums take_phase_sums(PhaseKind) override { return {}; }
  };
  std::vector<Slow> kernels(P);
  std::vector<rotation::EmbeddedWorker> workers(P);
  for (int w = 0; w < P; ++w) {
    kernels[static_cast<std::size_t>(w)].rank = w;
    workers[static_cast<std::size_t>(w)].kernel = &kernels[static_cast<std::size_t>(w)];
    for (auto id : schedule.held_at_start(w, 0)) workers[static_cast<std::size_t>(w)].initial_blocks.emplace_back(id, 1, 8);
  }
  rotation::EmbeddedJobOptions options;
  options.timeout = std::chrono::milliseconds(700);  // peer liveness: shorter than the hang, longer than the deadline
  options.visit_deadline = std::chrono::milliseconds(200);
  int phases = 0;
  auto policy = [&](const rotation::PhaseResult*) -> std::optional<PhaseKind> {
    if (phases++ == 3) return std::nullopt;
    return PhaseKind::kTrain;
  };
  const auto text = gyre::test::job_failure([&] {
    rotation::run_embedded(schedule, std::move(workers), policy, options, B::runtime_backend());
  });
  CHECK_MESSAGE(text.find("worker 1: its visit of block") != std::string::npos, text);
  CHECK_MESSAGE(text.find("past the visit deadline of 200 ms") != std::string::npos, text);
  CHECK_MESSAGE(text.find("no message") == std::string::npos, text);
}

TEST_CASE_TEMPLATE("a phase start carries the scheduler's payload to every worker's kernel before the phase's first visit",
                   B, GYRE_TEST_BACKENDS) {
  const int P = 3;
  const rotation::RotationSchedule schedule(P, 2, RingOrder::kRandom, 5);
  // The kernel learns each phase's learning rate from the payload, and checks every visit uses it.
  struct Paid final : rotation::RotationKernel {
    std::map<std::uint64_t, double> rate;  // by phase
    int wrong = 0;
    void start_phase(std::uint64_t phase, PhaseKind, std::span<const std::byte> payload) override {
      rate[phase] = wire::Reader(payload).get<double>("rate");
    }
    void train(model::Block&, const Visit& v) override {
      if (!rate.count(v.phase) || rate[v.phase] != 0.5 / static_cast<double>(v.phase + 1)) ++wrong;
    }
    void evaluate(const model::Block&, const Visit&) override {}
    rotation::PhaseSums take_phase_sums(PhaseKind) override { return {}; }
  };
  std::vector<Paid> kernels(P);
  std::vector<rotation::EmbeddedWorker> workers(P);
  for (int w = 0; w < P; ++w) {
    workers[static_cast<std::size_t>(w)].kernel = &kernels[static_cast<std::size_t>(w)];
    for (auto id : schedule.held_at_start(w, 0)) workers[static_cast<std::size_t>(w)].initial_blocks.emplace_back(id, 1, 8);
  }
  rotation::EmbeddedJobOptions options;
  options.timeout = std::chrono::seconds(20);
  int phases = 0;
  auto policy = [&](const rotation::PhaseResult*) -> std::optional<PhaseKind> {
    if (phases++ == 4) return std::nullopt;
    return PhaseKind::kTrain;
  };
  options.phase_payload = [](std::uint64_t phase, PhaseKind) {
    std::vector<std::byte> bytes(sizeof(double));
    wire::Writer(std::span<std::byte>(bytes)).put(0.5 / static_cast<double>(phase + 1)).finish();
    return bytes;
  };
  rotation::run_embedded(schedule, std::move(workers), policy, options, B::runtime_backend());
  for (const auto& k : kernels) {
    CHECK(k.wrong == 0);
    CHECK(k.rate.size() == 4);
  }

  SUBCASE("a payload over the limit fails the job on the scheduler's side") {
    std::vector<rotation::EmbeddedWorker> again(P);
    for (int w = 0; w < P; ++w) {
      again[static_cast<std::size_t>(w)].kernel = &kernels[static_cast<std::size_t>(w)];
      for (auto id : schedule.held_at_start(w, 0)) again[static_cast<std::size_t>(w)].initial_blocks.emplace_back(id, 1, 8);
    }
    phases = 0;
    options.phase_payload = [](std::uint64_t, PhaseKind) { return std::vector<std::byte>(rotation::kMaxPhasePayload + 1); };
    const auto text = gyre::test::job_failure(
        [&] { rotation::run_embedded(schedule, std::move(again), policy, options, B::runtime_backend()); });
    CHECK_MESSAGE(text.find("the payload of phase 0 has 65537 bytes, over the 65536") != std::string::npos, text);
  }
}

TEST_CASE("a worker asking for more threads than the machine has gets them, and TBB prints no warning past the log sink") {
  const int threads = 2 * static_cast<int>(std::max(1u, std::thread::hardware_concurrency())) + 1;
  const rotation::RotationSchedule schedule(2, 1, RingOrder::kFixed, 1);
  struct Sized final : rotation::RotationKernel {
    std::atomic<int> concurrency{0};
    void train(model::Block&, const Visit&) override { concurrency = oneapi::tbb::this_task_arena::max_concurrency(); }
    void evaluate(const model::Block&, const Visit&) override {}
    rotation::PhaseSums take_phase_sums(PhaseKind) override { return {}; }
  };
  std::vector<Sized> kernels(2);
  std::vector<rotation::EmbeddedWorker> workers(2);
  for (int w = 0; w < 2; ++w) {
    workers[static_cast<std::size_t>(w)].kernel = &kernels[static_cast<std::size_t>(w)];
    for (auto id : schedule.held_at_start(w, 0)) workers[static_cast<std::size_t>(w)].initial_blocks.emplace_back(id, 1, 8);
  }
  rotation::EmbeddedJobOptions options;
  options.threads_per_worker = threads;
  options.timeout = std::chrono::seconds(60);
  int phases = 0;
  auto policy = [&](const rotation::PhaseResult*) -> std::optional<PhaseKind> {
    if (phases++ == 1) return std::nullopt;
    return PhaseKind::kTrain;
  };
  // stderr, caught at the descriptor: TBB writes there directly.
  std::fflush(stderr);
  FILE* caught = std::tmpfile();
  REQUIRE(caught != nullptr);
  const int saved = ::dup(2);
  ::dup2(::fileno(caught), 2);
  rotation::run_embedded(schedule, std::move(workers), policy, options);
  std::fflush(stderr);
  ::dup2(saved, 2);
  ::close(saved);
  std::string text(4096, '\0');
  std::rewind(caught);
  text.resize(std::fread(text.data(), 1, text.size(), caught));
  std::fclose(caught);
  CHECK_MESSAGE(text.find("TBB Warning") == std::string::npos, text);
  for (const auto& k : kernels) CHECK(k.concurrency.load() == threads);
}

TEST_CASE_TEMPLATE("a kernel's end_phase comes once per phase, after its visits and before its report, with the blocks it keeps",
                   B, GYRE_TEST_BACKENDS) {
  const int P = 3, d = 2;
  const rotation::RotationSchedule schedule(P, d, RingOrder::kFixed, 1);
  struct Ending final : rotation::RotationKernel {
    int visits = 0;
    std::vector<std::string> events;
    void train(model::Block& b, const Visit&) override {
      ++visits;
      b.row(0)[0] += 1.0f;
    }
    void evaluate(const model::Block&, const Visit&) override {}
    void end_phase(std::uint64_t phase, PhaseKind, std::span<const model::Block* const> held) override {
      float seen = 0;
      for (const auto* b : held) seen += b->row(0)[0];
      events.push_back("end " + std::to_string(phase) + " after " + std::to_string(visits) + " visits, holding " +
                       std::to_string(held.size()) + " blocks");
      CHECK(seen >= 0);
    }
    rotation::PhaseSums take_phase_sums(PhaseKind) override {
      events.push_back("report");
      return {};
    }
  };
  std::vector<Ending> kernels(P);
  std::vector<rotation::EmbeddedWorker> workers(P);
  for (int w = 0; w < P; ++w) {
    workers[static_cast<std::size_t>(w)].kernel = &kernels[static_cast<std::size_t>(w)];
    for (auto id : schedule.held_at_start(w, 0)) workers[static_cast<std::size_t>(w)].initial_blocks.emplace_back(id, 1, 8);
  }
  rotation::EmbeddedJobOptions options;
  options.timeout = std::chrono::seconds(60);
  rotation::run_embedded(schedule, std::move(workers), rotation::train_phases(2), options, B::runtime_backend());
  const int per_phase = static_cast<int>(schedule.visits_per_phase());
  for (const auto& k : kernels) {
    REQUIRE(k.events.size() == 4);
    CHECK(k.events[0] == "end 0 after " + std::to_string(per_phase) + " visits, holding " + std::to_string(d) + " blocks");
    CHECK(k.events[1] == "report");
    CHECK(k.events[2] == "end 1 after " + std::to_string(2 * per_phase) + " visits, holding " + std::to_string(d) + " blocks");
    CHECK(k.events[3] == "report");
  }
}

TEST_CASE_TEMPLATE("blocks of another element type rotate as they are: rows of doubles and of a struct, bit for bit", B,
                   GYRE_TEST_BACKENDS) {
  struct Tally {
    float weight;
    std::int32_t count;
  };
  static_assert(model::BlockElement<double> && model::BlockElement<Tally>);
  static_assert(!model::BlockElement<std::int16_t>);
  constexpr std::size_t kCols = 3;
  const int P = 2;
  // Each visit adds a third (not exact in binary: the order of the additions shows) to every
  // double and counts itself in the tally row.
  struct Typed final : rotation::RotationKernel {
    void train(model::Block& b, const Visit&) override {
      for (double& x : b.row_as<double>(0).first(kCols)) x += 1.0 / 3;
      auto& t = b.row_as<Tally>(1)[0];
      t.weight += 0.5f;
      ++t.count;
    }
    void evaluate(const model::Block&, const Visit&) override {}
    rotation::PhaseSums take_phase_sums(PhaseKind) override { return {}; }
  };
  std::vector<Typed> kernels(P);
  const rotation::RotationModel shape{2, {2, model::stride_for<double>(kCols)}, [](model::Block& b) {
                                        b.row_as<double>(0)[0] = 1e-17 * b.id();
                                      }};
  CHECK(shape.shape.stride == 8);
  const std::vector<model::Block> blocks = rotation::rotate(rotation::rotation_job(P, B::runtime_backend()), shape,
                                       [&](int w) -> rotation::RotationKernel& { return kernels[static_cast<std::size_t>(w)]; },
                                       rotation::train_phases(5));
  REQUIRE(blocks.size() == 4);
  for (const auto& b : blocks) {
    double expected = 1e-17 * b.id();
    for (int v = 0; v < 5 * P; ++v) expected += 1.0 / 3;
    CHECK(b.row_as<double>(0)[0] == expected);  // the same bits as the additions in order
    CHECK(b.row_as<double>(0)[1] == b.row_as<double>(0)[2]);
    CHECK(b.row_as<Tally>(1)[0].count == 5 * P);
    CHECK(b.row_as<Tally>(1)[0].weight == 0.5f * 5 * P);
  }
}
