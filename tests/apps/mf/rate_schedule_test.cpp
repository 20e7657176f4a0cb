// tests/apps/mf/rate_schedule_test.cpp — each epoch's learning rate (warm-up, decay, cuts, growth), the held-out ratings that steer it, its phase-start payload.
#include <doctest/doctest.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <stdexcept>
#include <vector>

#include "mf/rate_schedule.hpp"
#include "mf/trainer.hpp"

using namespace gyre::mf;

TEST_CASE("the rate of an epoch: the warm-up share for a fresh model's first epoch, the decay, the cuts") {
  MfConfig c;
  c.learning_rate = 0.3f;
  c.lr_decay = 0.5f;
  c.lr_warmup = 0.25f;
  CHECK(epoch_rate(c, 0, 1.0f) == doctest::Approx(0.075));
  CHECK(epoch_rate(c, 1, 1.0f) == doctest::Approx(0.15));
  CHECK(epoch_rate(c, 2, 0.3f) == doctest::Approx(0.3 * 0.25 * 0.3));
  c.lr_warmup = 1;  // the default: no warm-up
  CHECK(epoch_rate(c, 0, 1.0f) == doctest::Approx(0.3));
}

TEST_CASE("a cut follows an epoch whose held-out RMSE rose, and only that") {
  MfConfig c;
  c.lr_cut = 0.3f;
  c.lr_grow = 1;  // never grows: the cuts alone
  const double train = 0.5;
  RateState s;  // fresh: no held-out RMSE yet, so the first epoch cuts nothing
  s = next_rate_state(c, s, 1.0, train);
  CHECK(s.scale == 1.0f);
  CHECK(s.held_out_rmse == 1.0);
  s = next_rate_state(c, s, 0.9, train);  // fell
  CHECK(s.scale == 1.0f);
  s = next_rate_state(c, s, 0.95, train);  // rose
  CHECK(s.scale == doctest::Approx(0.3));
  s = next_rate_state(c, s, 0.95, train);  // the same: not a rise
  CHECK(s.scale == doctest::Approx(0.3));
  s = next_rate_state(c, s, 0.96, train);
  CHECK(s.scale == doctest::Approx(0.09));
  CHECK(s.held_out_rmse == 0.96);
  c.lr_cut = 1;  // never
  CHECK(next_rate_state(c, s, 2.0, train).scale == s.scale);
}

TEST_CASE("the rate grows after an epoch whose held-out RMSE fell steadily and as much as the training RMSE, up to 8 times") {
  MfConfig c;
  CHECK(c.lr_grow == 1.5f);  // the defaults grow and cut
  CHECK(c.lr_cut == 0.3f);
  RateState s;
  s = next_rate_state(c, s, 1.0, 1.0);  // the first epoch: nothing to compare with
  CHECK(s.scale == 1.0f);
  CHECK(s.train_rmse == 1.0);
  s = next_rate_state(c, s, 0.9, 0.88);  // held-out 10% better, training 12%: 10 >= 0.7 * 12
  CHECK(s.scale == doctest::Approx(1.5));
  s = next_rate_state(c, s, 0.8, 0.6);  // held-out 11% better, but training 32%: overfitting's sign
  CHECK(s.scale == doctest::Approx(1.5));
  s = next_rate_state(c, s, 0.78, 0.59);  // held-out only 2.5% better: too little to grow on
  CHECK(s.scale == doctest::Approx(1.5));
  s = next_rate_state(c, s, 0.8, 0.5);  // held-out worse: cut
  CHECK(s.scale == doctest::Approx(0.45));
  // Growing stops at kMaxRateScale.
  double held = 1, train = 1;
  for (int e = 0; e < 20; ++e) {
    held *= 0.9;
    train *= 0.9;
    s = next_rate_state(c, s, held, train);
  }
  CHECK(s.scale == kMaxRateScale);
  // A resumed state without the training figure (an older checkpoint) grows nothing once.
  RateState old{1.0f, 1.0};
  CHECK(next_rate_state(c, old, 0.5, 0.5).scale == 1.0f);
  c.lr_grow = 1;
  CHECK(next_rate_state(c, RateState{1.0f, 1.0, 1.0}, 0.5, 0.5).scale == 1.0f);
}

TEST_CASE("a run starts from the saved model's rate state, else a fresh one") {
  MfConfig c;
  CHECK(initial_rate_state(c).scale == 1.0f);
  CHECK(std::isnan(initial_rate_state(c).held_out_rmse));
  auto saved = std::make_shared<MfModel>();
  saved->trained = TrainingRecord{};
  saved->trained->rate = RateState{0.09f, 0.81, 0.7};
  c.start = saved;
  CHECK(initial_rate_state(c).scale == 0.09f);
  CHECK(initial_rate_state(c).held_out_rmse == 0.81);
  CHECK(initial_rate_state(c).train_rmse == 0.7);
}

TEST_CASE("about the held-out share of the ratings is held out, the same ones for a seed, others for another") {
  MfConfig c;
  c.held_out = 0.02f;
  std::vector<bool> first;
  std::size_t held = 0, differ = 0;
  for (std::uint32_t u = 0; u < 400; ++u)
    for (std::uint32_t i = 0; i < 250; ++i) {
      first.push_back(is_held_out(c, u, i));
      held += first.back() ? 1 : 0;
    }
  // 100,000 draws at p = 0.02: mean 2,000, standard deviation 44.
  CHECK(held > 1800);
  CHECK(held < 2200);
  std::size_t at = 0, changed = 0;
  for (std::uint32_t u = 0; u < 400; ++u)
    for (std::uint32_t i = 0; i < 250; ++i) changed += is_held_out(c, u, i) != first[at++] ? 1 : 0;
  CHECK(changed == 0);
  c.seed = 2;
  at = 0;
  for (std::uint32_t u = 0; u < 400; ++u)
    for (std::uint32_t i = 0; i < 250; ++i) differ += is_held_out(c, u, i) != first[at++] ? 1 : 0;
  CHECK(differ > 3000);  // two independent 2% draws differ in about 3.9% of 100,000
  c.held_out = 0;
  CHECK_FALSE(is_held_out(c, 0, 0));
}

TEST_CASE("the scale travels in a phase start as 4 bytes; any other size is refused") {
  for (float scale : {1.0f, 0.3f, 0.027f, std::numeric_limits<float>::denorm_min()}) {
    const auto bytes = encode_rate_scale(scale);
    REQUIRE(bytes.size() == 4);
    CHECK(decode_rate_scale(bytes) == scale);
  }
  CHECK(encode_rate_scale(1.0f) == std::vector<std::byte>{std::byte{0}, std::byte{0}, std::byte{0x80}, std::byte{0x3F}});
  const std::vector<std::byte> short_payload(3);
  CHECK_THROWS_AS(decode_rate_scale(short_payload), std::runtime_error);
}
