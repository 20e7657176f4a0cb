// tests/apps/mf/mf_models_test.cpp — MF under Harp's four computation models from one setting: each learns, reports RMSE against time, and keeps its model's rules.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <functional>

#include "gyre/data/planted_ratings.hpp"
#include "support/sanitizers.hpp"
#include "trained_mf.hpp"
#include "mf/trainer.hpp"

using namespace gyre;
using gyre::test::TrainedMf;

namespace {

const data::PlantedRatings& planted_rank6_ratings() {
  static const data::PlantedRatings p = [] {
    data::PlantedRatingsOptions o;
    o.users = 1500;
    o.items = 800;
    o.ratings = 120'000;
    o.rank = 6;
    o.noise = 0.1;
    o.test_fraction = 0.1;
    o.seed = 8;
    return data::generate_planted_ratings(o);
  }();
  return p;
}

TrainedMf train_model(mf::ComputationModel model, int epochs,
                      mf::ChangeCollective collective = mf::ChangeCollective::kRing, int threads = 2,
                      const std::function<void(mf::MfConfig&)>& adjust = {}) {
  mf::MfConfig c;
  c.rank = 6;
  c.epochs = epochs;
  c.workers = 3;
  c.threads = threads;
  c.depth = 2;
  c.seed = 4;
  c.lambda = 0.01f;
  c.biases = false;  // the factors alone: biases have their own case
  c.model = model;
  c.collective = collective;
  c.local = mf::LocalSchedule::kDeterministic;  // the bits the allreduce case compares; the default is timing's
  c.average_ms = 2;
  if (adjust) adjust(c);
  TrainedMf t;
  mf::TrainHooks hooks;
  hooks.on_epoch = [&](const mf::EpochReport& r) { t.epochs.push_back(r); };
  t.model = mf::train_embedded(c, mf::shard_by_user(planted_rank6_ratings().train, 3), planted_rank6_ratings().test,
                               hooks);
  return t;
}

double final_test_rmse(const TrainedMf& t) { return *t.epochs.back().test_rmse; }

}  // namespace

TEST_CASE("every computation model learns the planted ratings and reports RMSE against time per epoch") {
  using M = mf::ComputationModel;
  const auto start = train_model(M::kRotation, 1);
  for (M model : {M::kLocking, M::kRotation, M::kAllreduce, M::kNoSync}) {
    CAPTURE(mf::name_of(model));
    const auto t = train_model(model, 12);
    REQUIRE(t.epochs.size() == 12);
    for (std::size_t e = 0; e < t.epochs.size(); ++e) {
      CHECK(t.epochs[e].epoch == static_cast<int>(e + 1));
      REQUIRE(t.epochs[e].test_rmse.has_value());
      if (e > 0) CHECK(t.epochs[e].seconds >= t.epochs[e - 1].seconds);
    }
    // No-sync (D) is held by its replicas' error (the next-to-last epoch's), what the last line
    // reported until issue 36; the last line is now the written mean's, which falls short of it
    // when the replicas exchange rarely (docs/cli/gyre-mf.md, --model D).
    const auto& held = model == M::kNoSync ? t.epochs[t.epochs.size() - 2] : t.epochs.back();
    CHECK(*held.test_rmse < 0.8 * final_test_rmse(start));
    CHECK(t.epochs.back().train_rmse < t.epochs.front().train_rmse);
    CHECK(t.model.item_factors.size() == std::size_t{800} * 6);
    CHECK(t.model.user_ids.size() == 1500);
    for (float x : t.model.item_factors) REQUIRE(std::isfinite(x));
  }
}

TEST_CASE("no-sync: the written mean is as accurate as the replicas, however seldom the clock asks for an exchange") {
  // With a 1 s interval the clock asks for no exchange in this whole run (12 epochs in well
  // under a second); only the exchanges every epoch must end with (one per peer) mix the
  // replicas. Without them the mean's error was 0.55-0.77 where the replicas' was 0.3
  // (nosync_worker.cpp, lead_rule()).
  for (int lead : {1, -1}) {
    CAPTURE(lead);
    const auto t = train_model(mf::ComputationModel::kNoSync, 12, mf::ChangeCollective::kRing, 1, [&](mf::MfConfig& c) {
      c.average_ms = 1000;
      c.max_lead = lead;
    });
    const auto& epochs = t.epochs;
    REQUIRE(epochs.size() == 12);
    const double replicas = *epochs[10].test_rmse, mean = *epochs[11].test_rmse;
    MESSAGE("replicas " << replicas << ", mean " << mean);
    CHECK(mean < 1.2 * replicas);
  }
}

TEST_CASE("locking matches rotation's accuracy: both train every block once per epoch on the latest factors") {
  // Locking's block order follows thread timing, which shifts where a run is after a few
  // epochs; compared once both have converged (20 epochs of AdaGrad here), it must not matter.
  // In a plain build locking ended at 0.142–0.181 in 5 runs against rotation's 0.1456; under
  // ASan, once at 0.35 (CI, 2026-11-24), so there the bound is reported, not enforced. With two
  // threads per worker a loaded machine spreads locking far wider (a plain CI build: 0.367,
  // 2026-11-25; gyre-mf on the same shape, 16 runs beside a build: 0.144–0.258) while one thread
  // per worker stays within 0.133–0.150 (rotation 0.144), so the models are compared at T = 1.
  // The spread at T = 2 is not explained yet (issue notes, stop 31).
  const auto locking = train_model(mf::ComputationModel::kLocking, 20, mf::ChangeCollective::kRing, 1);
  const auto rotation = train_model(mf::ComputationModel::kRotation, 20, mf::ChangeCollective::kRing, 1);
  GYRE_TIMING_CHECK(final_test_rmse(locking) == doctest::Approx(final_test_rmse(rotation)).epsilon(0.1));
}

TEST_CASE("allreduce: ring, regroup+allgather and push&pull sum the same changes; each repeats bit for bit") {
  const auto ring = train_model(mf::ComputationModel::kAllreduce, 3, mf::ChangeCollective::kRing);
  const auto again = train_model(mf::ComputationModel::kAllreduce, 3, mf::ChangeCollective::kRing);
  CHECK(std::memcmp(again.model.item_factors.data(), ring.model.item_factors.data(),
                    ring.model.item_factors.size() * sizeof(float)) == 0);
  for (auto how : {mf::ChangeCollective::kRegroup, mf::ChangeCollective::kPushPull}) {
    // The ring adds the three changes in another order than member order: the same up to rounding.
    const auto other = train_model(mf::ComputationModel::kAllreduce, 3, how);
    double worst = 0;
    for (std::size_t i = 0; i < ring.model.item_factors.size(); ++i)
      worst = std::max(worst, std::abs(double(other.model.item_factors[i]) - ring.model.item_factors[i]));
    CHECK(worst < 1e-4);
    CHECK(final_test_rmse(other) == doctest::Approx(final_test_rmse(ring)).epsilon(1e-4));
  }
}

TEST_CASE("computation model names parse, and bad ones are refused") {
  CHECK(mf::parse_computation_model("A") == mf::ComputationModel::kLocking);
  CHECK(mf::parse_computation_model("rotation") == mf::ComputationModel::kRotation);
  CHECK(mf::parse_computation_model("C") == mf::ComputationModel::kAllreduce);
  CHECK(mf::parse_computation_model("nosync") == mf::ComputationModel::kNoSync);
  CHECK_THROWS_WITH_AS(mf::parse_computation_model("E"), doctest::Contains("expected A|locking"), std::invalid_argument);
  CHECK_THROWS_AS(mf::parse_change_collective("tree"), std::invalid_argument);
}
