// tests/apps/mf/mf_scoring_test.cpp — model files read back to the same bits, and the scorer and top-N on a hand-computed model.
#include <doctest/doctest.h>

#include <sstream>

#include "mf/model_io.hpp"
#include "mf/model_use.hpp"
#include "mf/queries.hpp"
#include "mf/scorer.hpp"
#include "support/temp_dir.hpp"
#include "tiny_model.hpp"

using namespace gyre;

TEST_CASE("mf::read_model reads back what write_model wrote, bit for bit, training record included") {
  mf::MfModel m;
  m.rank = 3;
  m.biases = true;
  m.mean = 3.6012345f;
  m.users = 2;
  m.items = 2;
  m.user_ids = {4, 2000000000};
  m.item_ids = {0, 7};
  m.user_factors = {0.1f, -1e-30f, 3.4028235e38f, 1.0f / 3, -0.0f, 7e-45f};
  m.user_bias = {0.25f, -2.0f / 3};
  m.item_factors = {1, 2, 3, 4.000001f, 5, 6};
  m.item_bias = {0, 1e-7f};
  m.trained = mf::TrainingRecord{12, 0.05f, 0.95f, 0.02f, 0.01f, 18446744073709551615ull, 24};
  test::TempDir dir;
  mf::write_model(dir / "m", m);
  const mf::MfModel back = mf::read_model(dir / "m");
  CHECK(back.rank == 3);
  CHECK(back.biases);
  CHECK(back.mean == m.mean);
  CHECK(back.user_ids == m.user_ids);
  CHECK(back.item_ids == m.item_ids);
  CHECK(back.user_factors == m.user_factors);
  CHECK(back.user_bias == m.user_bias);
  CHECK(back.item_factors == m.item_factors);
  CHECK(back.item_bias == m.item_bias);
  REQUIRE(back.trained);
  CHECK(back.trained->epochs == 12);
  CHECK(back.trained->learning_rate == 0.05f);
  CHECK(back.trained->lr_decay == 0.95f);
  CHECK(back.trained->seed == 18446744073709551615ull);
  CHECK(back.trained->phases == 24);
}

TEST_CASE("mf::Scorer and mf::recommend on the hand-computed tiny model") {
  test::TempDir dir;
  test::write_tiny_model(dir / "m");
  const mf::MfModel model = mf::read_model(dir / "m");
  CHECK(!model.trained);  // a version-1 header
  const mf::Scorer scorer(model, dir / "m");
  CHECK(scorer.score(0, 1) == 6.0f);
  CHECK(scorer.score(1, 3) == 6.25f);
  CHECK(scorer.score(2, 0) == 5.0f);
  CHECK(scorer.find_user(20) == 1);
  CHECK(scorer.find_user(21) == -1);
  CHECK(scorer.find_item(4) == 3);

  // The matrix product gives the same scores as the dot products.
  mf::Scorer::Matrix all;
  scorer.score_all_items({2, 0}, all);
  REQUIRE(all.rows() == 2);
  REQUIRE(all.cols() == 4);
  for (std::uint32_t i = 0; i < 4; ++i) {
    CHECK(all(0, i) == scorer.score(2, i));
    CHECK(all(1, i) == scorer.score(0, i));
  }

  std::ostringstream out;
  mf::recommend(scorer, {0, 2}, 2, nullptr, out);
  CHECK(out.str() == "10\t2\t6\t1\n10\t1\t4.5\t2\n30\t2\t5.5\t1\n30\t4\t5.5\t2\n");

  test::write_text(dir / "seen.tsv", "30 2 1\n");
  const mf::RatedItems seen = mf::read_rated_items(dir / "seen.tsv", scorer);
  std::ostringstream without;
  mf::recommend(scorer, {2}, 2, &seen, without);
  CHECK(without.str() == "30\t4\t5.5\t1\n30\t1\t5\t2\n");
}

TEST_CASE("mf::IdIndex finds rows by table when ids are dense and by bisection when sparse") {
  const mf::IdIndex dense({0, 3, 4, 9}), sparse({5, 70000, 2000000000});
  CHECK(dense.find(0) == 0);
  CHECK(dense.find(9) == 3);
  CHECK(dense.find(5) == -1);
  CHECK(dense.find(10) == -1);
  CHECK(dense.find(4000000000u) == -1);
  CHECK(sparse.find(70000) == 1);
  CHECK(sparse.find(2000000000) == 2);
  CHECK(sparse.find(6) == -1);
  CHECK(sparse.id(2) == 2000000000);
  CHECK(mf::IdIndex({}).find(0) == -1);
}
