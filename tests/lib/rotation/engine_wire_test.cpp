// tests/lib/rotation/engine_wire_test.cpp — a hostile rank among real worker engines and the real driver: every bad block or signal fails the job naming it.
#include <doctest/doctest.h>

#include <chrono>
#include <functional>
#include <future>
#include <optional>
#include <string>
#include <vector>

#include "gyre/rotation/block_codec.hpp"
#include "gyre/rotation/rotation_driver.hpp"
#include "gyre/rotation/worker_engine.hpp"
#include "gyre/wire/codec.hpp"
#include "lib/net/backends.hpp"
#include "support/job_failure.hpp"

using namespace gyre;
using namespace std::chrono_literals;
using rotation::PhaseKind;
using rotation::RotationSchedule;

namespace {

constexpr model::BlockShape kShape{2, 8};  // every block of these jobs

struct NoopKernel final : rotation::RotationKernel {
  void train(model::Block&, const rotation::Visit&) override {}
  void evaluate(const model::Block&, const rotation::Visit&) override {}
  rotation::PhaseSums take_phase_sums(PhaseKind) override { return {}; }
};

struct HostileJobOutcome {
  std::vector<std::string> errors;  // each real part's JobFailed text (gyre::test::job_failure)
  std::optional<std::string> told;  // the failure notice the hostile rank was sent
  std::chrono::steady_clock::duration took{};
};

// P workers and the scheduler (rank P) over the backend; worker `hostile` is the test's, every
// other worker runs the real engine and the scheduler the real driver, training phase after
// phase (so the job can only end by failing). `attack` sends whatever it likes from the
// hostile rank; the rank then waits for the job's failure notice.
template <class B>
HostileJobOutcome hostile_job(int P, int d, int hostile,
                              const std::function<void(net::Group&, const RotationSchedule&)>& attack) {
  const RotationSchedule schedule(P, d, rotation::RingOrder::kFixed, 1);
  const std::vector<model::BlockShape> layout(static_cast<std::size_t>(schedule.blocks()), kShape);
  auto groups = B::make(P + 1);
  const auto start = std::chrono::steady_clock::now();
  std::vector<std::future<std::string>> parts;
  for (int w = 0; w < P; ++w) {
    if (w == hostile) continue;
    parts.push_back(std::async(std::launch::async, [&, w] {
      return gyre::test::job_failure([&] {
        NoopKernel kernel;
        rotation::WorkerOptions o;
        o.scheduler_rank = P;
        o.timeout = 20s;
        runtime::Mailbox mailbox(*groups[static_cast<std::size_t>(w)]);
        rotation::WorkerEngine engine(mailbox, schedule, layout, kernel, o);
        std::vector<model::Block> initial;
        for (auto id : schedule.held_at_start(w, 0)) initial.emplace_back(id, kShape.rows, kShape.stride);
        engine.run(std::move(initial));
      });
    }));
  }
  parts.push_back(std::async(std::launch::async, [&] {
    return gyre::test::job_failure([&] {
      std::vector<int> workers;
      for (int w = 0; w < P; ++w) workers.push_back(w);
      runtime::Mailbox mailbox(*groups[static_cast<std::size_t>(P)]);
      rotation::RotationDriver(mailbox, workers, 20s)
          .run([](const rotation::PhaseResult*) { return std::optional(PhaseKind::kTrain); });
    });
  }));

  net::Group& mine = *groups[static_cast<std::size_t>(hostile)];
  attack(mine, schedule);
  HostileJobOutcome out;
  const auto deadline = net::Clock::now() + 20s;
  while (!out.told) {
    auto m = mine.receive(deadline);
    if (!m) break;
    if (runtime::is_failure_notice(*m)) out.told = runtime::read_failure(*m).what();
  }
  for (auto& p : parts) out.errors.push_back(p.get());
  out.took = std::chrono::steady_clock::now() - start;
  return out;
}

// Every real part failed with an error holding `what`, the hostile rank was told, and nobody
// waited for a timeout.
void check_failed_with(const HostileJobOutcome& o, const std::string& what) {
  for (const auto& e : o.errors) CHECK_MESSAGE(e.find(what) != std::string::npos, e);
  REQUIRE(o.told.has_value());
  CHECK_MESSAGE(o.told->find(what) != std::string::npos, *o.told);
  CHECK(o.took < 10s);
}

// Worker 0's visit at index `i` of phase 0, and its block sent there by `from`.
void send_block(net::Group& from, const RotationSchedule& s, std::size_t i, model::BlockId id, model::BlockShape shape,
                std::optional<std::uint64_t> seq = {}) {
  const rotation::Visit v = s.visits(0, 0).at(i);
  from.send(0, rotation::encode_block(model::Block(id, shape.rows, shape.stride), seq.value_or(v.seq)));
}

model::BlockId visit_block(const RotationSchedule& s, std::size_t i) { return s.visits(0, 0).at(i).block; }

}  // namespace

TEST_CASE_TEMPLATE("a block in another shape than the plan's fails the job naming its sender", B, GYRE_TEST_BACKENDS) {
  // P = 2, d = 1: worker 1 is worker 0's ring predecessor, and visit 1 is its block's.
  const auto o = hostile_job<B>(2, 1, 1, [](net::Group& g, const RotationSchedule& s) {
    send_block(g, s, 1, visit_block(s, 1), {3, 8});
  });
  check_failed_with(o, "block 1 from rank 1 has 3 rows of 8 floats; the plan here has 2 rows of 8 floats");
}

TEST_CASE_TEMPLATE("a block other than the one the schedule has for its visit fails the job", B, GYRE_TEST_BACKENDS) {
  // d = 2: worker 0's step-1 visits are of two blocks; the one for the first comes with the
  // second's id, in the plan's shape.
  const auto o = hostile_job<B>(2, 2, 1, [](net::Group& g, const RotationSchedule& s) {
    send_block(g, s, 2, visit_block(s, 3), kShape);
  });
  check_failed_with(o, " from rank 1 is for visit 2 (phase 0), which is the visit of block");
}

TEST_CASE_TEMPLATE("a block from a rank that is not the visit's ring predecessor fails the job", B, GYRE_TEST_BACKENDS) {
  // P = 3, fixed ring 0 → 1 → 2 → 0: worker 0's blocks come from worker 2, not from worker 1.
  const auto o = hostile_job<B>(3, 1, 1, [](net::Group& g, const RotationSchedule& s) {
    send_block(g, s, 1, visit_block(s, 1), kShape);
  });
  check_failed_with(o, "from rank 1 is for visit 1 (phase 0), but in that phase's ring it comes from rank 2");
}

TEST_CASE_TEMPLATE("a block for a visit outside the window, or for one already received, fails the job", B,
                   GYRE_TEST_BACKENDS) {
  SUBCASE("far ahead (the sequencer would be sized by it)") {
    const auto o = hostile_job<B>(2, 1, 1, [](net::Group& g, const RotationSchedule& s) {
      send_block(g, s, 1, visit_block(s, 1), kShape, 1'000'000'000'000ull);
    });
    check_failed_with(o, "from rank 1 is for visit 1000000000000 (phase 500000000000)");
  }
  SUBCASE("a first-step visit, whose block is held") {
    const auto o = hostile_job<B>(2, 1, 1, [](net::Group& g, const RotationSchedule& s) {
      send_block(g, s, 1, visit_block(s, 0), kShape, 0);
    });
    check_failed_with(o, "from rank 1 is for visit 0 (phase 0), a first-step visit");
  }
  SUBCASE("twice") {
    const auto o = hostile_job<B>(2, 1, 1, [](net::Group& g, const RotationSchedule& s) {
      send_block(g, s, 1, visit_block(s, 1), kShape);
      send_block(g, s, 1, visit_block(s, 1), kShape);
    });
    check_failed_with(o, "from rank 1 is for visit 1, whose block has already arrived");
  }
}

TEST_CASE_TEMPLATE("phase signals from a worker, and bad phase reports, fail the job naming the sender", B,
                   GYRE_TEST_BACKENDS) {
  SUBCASE("a phase start") {
    const auto o = hostile_job<B>(2, 1, 1, [](net::Group& g, const RotationSchedule&) {
      net::Message m;
      m.type = rotation::kPhaseGo;
      m.meta = wire::encode(rotation::PhaseGo{0, 0});
      g.send(0, std::move(m));
    });
    check_failed_with(o, "rank 1 sent a phase start, but the scheduler is rank 2");
  }
  SUBCASE("a stop") {
    const auto o = hostile_job<B>(2, 1, 1, [](net::Group& g, const RotationSchedule&) {
      net::Message m;
      m.type = rotation::kStop;
      g.send(0, std::move(m));
    });
    check_failed_with(o, "rank 1 sent a stop, but the scheduler is rank 2");
  }
  SUBCASE("a malformed phase report") {
    const auto o = hostile_job<B>(2, 1, 1, [](net::Group& g, const RotationSchedule&) {
      net::Message m;
      m.type = rotation::kPhaseDone;
      m.meta.resize(3);
      g.send(2, std::move(m));
    });
    check_failed_with(o, "scheduler: rank 1 sent a malformed phase report");
  }
  SUBCASE("a phase reported twice") {
    const auto o = hostile_job<B>(2, 1, 1, [](net::Group& g, const RotationSchedule&) {
      for (int i = 0; i < 2; ++i) g.send(2, rotation::encode_phase_done(0, {}));
    });
    check_failed_with(o, "scheduler: rank 1 reported phase 0 twice");
  }
}

TEST_CASE("initial blocks and layouts that do not fit the schedule are the caller's error") {
  const RotationSchedule schedule(2, 1, rotation::RingOrder::kFixed, 1);
  auto groups = net::make_inproc_groups(3);
  NoopKernel kernel;
  runtime::Mailbox mailbox(*groups[0]);
  SUBCASE("a layout of another block count") {
    rotation::WorkerEngine engine(mailbox, schedule, {kShape}, kernel, {});
    CHECK_THROWS_AS(engine.run({}), std::invalid_argument);
  }
  SUBCASE("an initial block in another shape") {
    rotation::WorkerEngine engine(mailbox, schedule, {kShape, kShape}, kernel, {});
    std::vector<model::Block> initial;
    initial.emplace_back(0, 5, 8);
    CHECK_THROWS_WITH_AS(engine.run(std::move(initial)), doctest::Contains("initial block 0"), std::invalid_argument);
  }
}
