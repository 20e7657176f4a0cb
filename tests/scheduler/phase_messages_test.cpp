// tests/scheduler/phase_messages_test.cpp — phase starts and phase reports as their receivers check them (failure notices: tests/lib/runtime).
#include <doctest/doctest.h>

#include "gyre/scheduler/rotation_driver.hpp"
#include "gyre/wire/codec.hpp"

using namespace gyre;
using namespace gyre::scheduler;

namespace {

net::Message from(int sender, std::uint16_t type, std::vector<std::byte> meta) {
  net::Message m;
  m.type = type;
  m.sender = sender;
  m.meta = std::move(meta);
  return m;
}

}  // namespace

TEST_CASE("a phase start is taken from the scheduler only, for the next phase, of a known kind") {
  const auto go = [](int sender, std::uint64_t phase, std::uint8_t kind) {
    return from(sender, kPhaseGo, wire::encode(PhaseGo{phase, kind}));
  };
  CHECK(decode_phase_go(go(4, 2, 1), 4, 2).kind == 1);
  CHECK_THROWS_WITH_AS(decode_phase_go(go(1, 2, 0), 4, 2), "rank 1 sent a phase start, but the scheduler is rank 4",
                       std::runtime_error);
  CHECK_THROWS_WITH_AS(decode_phase_go(go(4, 7, 0), 4, 2), "rank 4 started phase 7 where phase 2 comes next",
                       std::runtime_error);
  CHECK_THROWS_WITH_AS(decode_phase_go(go(4, 2, 9), 4, 2), "rank 4 started phase 2 of unknown kind 9",
                       std::runtime_error);
  CHECK_THROWS_WITH_AS(decode_phase_go(from(4, kPhaseGo, std::vector<std::byte>(3)), 4, 2),
                       doctest::Contains("rank 4 sent a malformed phase start"), std::runtime_error);
}

TEST_CASE("a phase report is taken for the phase running only") {
  const auto done = [](std::uint64_t phase) { return from(3, kPhaseDone, wire::encode(PhaseDone{phase, {2.5}})); };
  CHECK(decode_phase_done(done(5), 5).sums[0] == 2.5);
  CHECK_THROWS_WITH_AS(decode_phase_done(done(6), 5), "rank 3 reported phase 6 during phase 5", std::runtime_error);
  CHECK_THROWS_WITH_AS(decode_phase_done(from(3, kPhaseDone, std::vector<std::byte>(100)), 5),
                       doctest::Contains("rank 3 sent a malformed phase report"), std::runtime_error);
}

TEST_CASE("a phase start's payload is bounded") {
  auto m = from(4, kPhaseGo, wire::encode(PhaseGo{0, 0}));
  m.body = Buffer(kMaxPhasePayload);
  CHECK(decode_phase_go(m, 4, 0).phase == 0);
  m.body = Buffer(kMaxPhasePayload + 1);
  CHECK_THROWS_WITH_AS(decode_phase_go(m, 4, 0), "rank 4 started phase 0 with a payload of 65537 bytes, over the 65536",
                       std::runtime_error);
}

namespace {
struct Losses {
  double loss = 0, count = 0, held_out = 0;
};
struct WithACount {
  double loss = 0;
  long count = 0;
};
struct WithAFloat {
  double loss = 0;
  float a = 0, b = 0;
};
struct TooMany {
  double x[kPhaseSums + 1];
};
}  // namespace

TEST_CASE("a phase report is a struct of doubles that round-trips through the phase's sums, summed field by field") {
  static_assert(PhaseReport<Losses>);
  static_assert(!PhaseReport<WithACount>);
  static_assert(!PhaseReport<WithAFloat>);
  static_assert(!PhaseReport<TooMany>);
  const auto sums = to_sums(Losses{2.5, 4, 0.25});
  CHECK(sums[0] == 2.5);
  CHECK(sums[2] == 0.25);
  CHECK(sums[3] == 0);
  PhaseResult r;
  for (std::size_t i = 0; i < kPhaseSums; ++i) r.sums[i] = sums[i] + sums[i];  // two workers' reports, as the driver adds them
  const auto total = r.report<Losses>();
  CHECK(total.loss == 5);
  CHECK(total.count == 8);
  CHECK(total.held_out == 0.5);
}
