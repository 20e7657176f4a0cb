// tests/apps/mf/mf_train_test.cpp — MF by rotation: convergence on planted data, reproducibility, local schedules.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>

#include "gyre/data/planted_ratings.hpp"
#include "mf/mf_kernel.hpp"
#include "mf/trainer.hpp"
#include "support/float_checks.hpp"
#include "trained_mf.hpp"

using namespace gyre;
using gyre::test::TrainedMf;
using gyre::test::same_bits;

namespace {

const data::PlantedRatings& planted_rank8_ratings() {
  static const data::PlantedRatings p = [] {
    data::PlantedRatingsOptions o;
    o.users = 2000;
    o.items = 1000;
    o.ratings = 222'000;  // 200k train, 22k test
    o.rank = 8;
    o.noise = 0.1;
    o.test_fraction = 0.1;
    o.seed = 5;
    return data::generate_planted_ratings(o);
  }();
  return p;
}

mf::MfConfig mf_config(int P, int T, int d) {
  mf::MfConfig c;
  c.rank = 8;
  c.epochs = 20;
  c.workers = P;
  c.threads = T;
  c.depth = d;
  c.seed = 3;
  c.lambda = 0.01f;
  c.biases = false;  // the factors alone: biases have their own case
  c.local = mf::LocalSchedule::kDeterministic;  // the bits these tests compare; the default is timing's
  return c;
}

TrainedMf train_recorded(const mf::MfConfig& c) {
  TrainedMf t;
  mf::TrainHooks hooks;
  hooks.on_epoch = [&](const mf::EpochReport& r) { t.epochs.push_back(r); };
  t.model = mf::train_embedded(
      c, mf::shard_by_user(planted_rank8_ratings().train, static_cast<std::uint32_t>(c.workers)),
      planted_rank8_ratings().test, hooks);
  return t;
}

}  // namespace

TEST_CASE("on planted rank-8 data with noise 0.1, test RMSE falls below 0.15 within 20 epochs") {
  REQUIRE(planted_rank8_ratings().train.ratings.size() >= 195'000);
  for (const auto& layout : {std::tuple{1, 2, 1}, std::tuple{2, 1, 2}, std::tuple{3, 1, 1}}) {
    const int P = std::get<0>(layout), T = std::get<1>(layout), d = std::get<2>(layout);
    CAPTURE(P);
    CAPTURE(d);
    const auto t = train_recorded(mf_config(P, T, d));
    REQUIRE(t.epochs.size() == 20);
    CHECK(t.epochs.front().test_rmse.value() > 0.5);  // it starts far off…
    CHECK(t.epochs.back().test_rmse.value() < 0.15);  // …and ends near the noise floor
    CHECK(t.epochs.back().train_rmse < t.epochs.front().train_rmse);
    for (const auto& e : t.epochs) CHECK(e.updates_per_s > 0);
  }
}

TEST_CASE("same seed, P, d and T give bitwise identical factors across runs") {
  auto c = mf_config(2, 2, 2);
  c.epochs = 4;
  c.ring = rotation::RingOrder::kRandom;
  const auto a = train_recorded(c);
  const auto b = train_recorded(c);
  CHECK(same_bits(a.model.user_factors, b.model.user_factors));
  CHECK(same_bits(a.model.item_factors, b.model.item_factors));
  CHECK(a.epochs.back().test_rmse == b.epochs.back().test_rmse);
  c.seed = 4;
  const auto other = train_recorded(c);
  CHECK_FALSE(same_bits(a.model.item_factors, other.model.item_factors));
}

TEST_CASE("the depth only bounds the blocks in flight: with the same blocks per worker, every depth gives the same bits") {
  auto c = mf_config(3, 1, 1);
  c.epochs = 3;
  c.ring = rotation::RingOrder::kRandom;
  c.blocks_per_worker = 4;
  const auto one = train_recorded(c);
  for (int depth : {2, 4}) {
    CAPTURE(depth);
    c.depth = depth;
    const auto deeper = train_recorded(c);
    CHECK(same_bits(one.model.item_factors, deeper.model.item_factors));
    CHECK(same_bits(one.model.user_factors, deeper.model.user_factors));
  }
  c.blocks_per_worker = 0;  // m = d = 4: the same 12 blocks
  CHECK(same_bits(one.model.item_factors, train_recorded(c).model.item_factors));
  c.blocks_per_worker = 2;  // other blocks, another model
  CHECK_FALSE(same_bits(one.model.item_factors, train_recorded(c).model.item_factors));
}

TEST_CASE("biases and the dynamic (FPSGD) local schedule also converge") {
  auto c = mf_config(1, 2, 2);
  c.biases = true;
  c.local = mf::LocalSchedule::kDynamic;
  // On these nearly noise-free ratings AdaGrad's default rate ends close to the bound (0.150
  // once in CI, the biases' sums shrinking their steps too); a higher rate converges in time.
  c.learning_rate = 0.2f;
  const auto t = train_recorded(c);
  CHECK(t.epochs.back().test_rmse.value() < 0.15);
  CHECK(t.model.user_bias.size() == t.model.user_ids.size());
  CHECK(t.model.item_bias.size() == t.model.items);
}

TEST_CASE("AdaGrad's first epoch on the first columns asked for, whole vectors of 8; by default on every column") {
  mf::MfConfig c;
  c.rank = 100;
  CHECK(mf::first_epoch_width(c, 104) == 104);
  c.first_epoch_columns = 8;
  CHECK(mf::first_epoch_width(c, 104) == 8);
  c.first_epoch_columns = 12;
  CHECK(mf::first_epoch_width(c, 104) == 16);
  c.first_epoch_columns = 200;
  CHECK(mf::first_epoch_width(c, 104) == 104);

  // On rank-16 rows: epoch 1 differs from every column's, and rank 8 has nothing to leave out.
  auto r = mf_config(1, 1, 1);
  r.rank = 16;
  r.epochs = 3;
  const auto all = train_recorded(r);
  r.first_epoch_columns = 8;
  const auto first = train_recorded(r);
  CHECK(first.epochs.front().test_rmse != all.epochs.front().test_rmse);
  CHECK_FALSE(same_bits(first.model.item_factors, all.model.item_factors));
  auto eight = mf_config(1, 1, 1);
  eight.epochs = 2;
  const auto a = train_recorded(eight);
  eight.first_epoch_columns = 8;
  CHECK(same_bits(a.model.item_factors, train_recorded(eight).model.item_factors));
}

TEST_CASE("sub-block locks refuse a second owner of a user group or item sub-block") {
  gyre::rotation::GridLocks locks(3);
  CHECK(locks.try_acquire(0, 1));
  CHECK_FALSE(locks.try_acquire(0, 2));  // same user group
  CHECK_FALSE(locks.try_acquire(2, 1));  // same item sub-block
  CHECK(locks.try_acquire(1, 2));
  locks.release(0, 1);
  CHECK(locks.try_acquire(2, 1));
}

TEST_CASE("configs that cannot run are refused with a reason") {
  auto c = mf_config(2, 1, 1);
  CHECK_THROWS_AS(mf::train_embedded(c, mf::shard_by_user(planted_rank8_ratings().train, 3), {}),
                  std::invalid_argument);
  c.rank = 0;
  CHECK_THROWS_AS(mf::train_embedded(c, mf::shard_by_user(planted_rank8_ratings().train, 2), {}),
                  std::invalid_argument);
  c = mf_config(1, 1, 1);
  c.first_epoch_columns = 8;
  c.update = mf::UpdateRule::kSgd;
  CHECK_THROWS_WITH_AS(mf::train_embedded(c, mf::shard_by_user(planted_rank8_ratings().train, 1), {}),
                       doctest::Contains("AdaGrad"), std::invalid_argument);
}
