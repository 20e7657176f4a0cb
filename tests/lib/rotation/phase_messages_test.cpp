// tests/lib/rotation/phase_messages_test.cpp — phase starts and phase reports as their receivers check them (failure notices: tests/lib/runtime).
#include <doctest/doctest.h>

#include "gyre/rotation/rotation_driver.hpp"
#include "gyre/wire/codec.hpp"

using namespace gyre;
using namespace gyre::rotation;

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
  const auto done = [](std::uint64_t phase) {
    auto m = encode_phase_done(phase, {2.5});
    m.sender = 3;
    return m;
  };
  CHECK(decode_phase_done(done(5), 5).sums == PhaseSums{2.5});
  CHECK_THROWS_WITH_AS(decode_phase_done(done(6), 5), "rank 3 reported phase 6 during phase 5", std::runtime_error);
  CHECK_THROWS_WITH_AS(decode_phase_done(from(3, kPhaseDone, std::vector<std::byte>(100)), 5),
                       doctest::Contains("rank 3 sent a malformed phase report"), std::runtime_error);
}

TEST_CASE("a phase report has any number of sums up to the bound, in whole doubles") {
  PhaseSums many(kMaxPhaseSums);
  for (std::size_t i = 0; i < many.size(); ++i) many[i] = static_cast<double>(i) / 3;
  auto m = encode_phase_done(1, many);
  m.sender = 2;
  CHECK(decode_phase_done(m, 1).sums == many);
  CHECK(decode_phase_done(encode_phase_done(0, {}), 0).sums.empty());
  many.push_back(0);
  CHECK_THROWS_AS(encode_phase_done(1, many), std::length_error);
  m.body = Buffer((kMaxPhaseSums + 1) * sizeof(double));  // a peer's, over the bound
  CHECK_THROWS_WITH_AS(decode_phase_done(m, 1), doctest::Contains("rank 2's report of phase 1"), wire::DecodeError);
  m.body = Buffer(12);  // not whole doubles
  CHECK_THROWS_WITH_AS(decode_phase_done(m, 1), doctest::Contains("rank 2's report of phase 1"), wire::DecodeError);
}

TEST_CASE("reports add element by element in rank order; one of another length names its sender") {
  PhaseSums total;
  add_phase_sums(total, true, {1, 2, 3}, 0, 4);
  add_phase_sums(total, false, {10, 20, 30}, 1, 4);
  CHECK(total == PhaseSums{11, 22, 33});
  CHECK_THROWS_WITH_AS(add_phase_sums(total, false, {1, 2}, 5, 4),
                       "rank 5 reported 2 sums for phase 4, the workers before it 3", std::runtime_error);
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
  double x[kMaxPhaseSums + 1];
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
  CHECK(sums.size() == 3);
  PhaseResult r;
  r.sums.assign(sums.size(), 0.0);
  for (std::size_t i = 0; i < sums.size(); ++i) r.sums[i] = sums[i] + sums[i];  // two workers' reports, as the driver adds them
  const auto total = r.report<Losses>();
  CHECK(total.loss == 5);
  CHECK(total.count == 8);
  CHECK(total.held_out == 0.5);
}
