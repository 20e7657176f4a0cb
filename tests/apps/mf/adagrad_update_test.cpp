// tests/apps/mf/adagrad_update_test.cpp — the AdaGrad pass is LIBMF's rule on ratings divided by σ, written for the ratings as they are.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "mf/sgd_update.hpp"

using namespace gyre;

namespace {

constexpr std::size_t kRank = 5, kWidth = 8, kStride = 16;  // padded width, then the tail

// LIBMF's update on scaled ratings r/σ (rows p/√σ, q/√σ, λ/σ), plain loops in double: each
// row's sum G starts at 1, a rating steps p by η/√G_p·g_p and adds |g_p|²/k to G_p. As in
// gyre, a user's rate is read once per run of its ratings (the cell is sorted by user).
struct Reference {
  std::vector<double> users, items;  // rank values, then G, per row
  void pass(const std::vector<mf::CellRating>& cell, double eta, double lambda, double sigma) {
    const std::size_t row = kRank + 1;
    double user_rate = 0, user_squares = 0;
    for (std::size_t i = 0; i < cell.size(); ++i) {
      double* p = &users[cell[i].user * row];
      double* q = &items[cell[i].row * row];
      if (i == 0 || cell[i].user != cell[i - 1].user) {
        user_rate = eta / std::sqrt(p[kRank]);
        user_squares = 0;
      }
      double dot = 0;
      for (std::size_t j = 0; j < kRank; ++j) dot += p[j] * q[j];
      const double e = cell[i].value / sigma - dot;
      const double item_rate = eta / std::sqrt(q[kRank]);
      double item_squares = 0;
      for (std::size_t j = 0; j < kRank; ++j) {
        const double gp = lambda / sigma * p[j] - e * q[j];
        const double gq = lambda / sigma * q[j] - e * p[j];
        user_squares += gp * gp;
        item_squares += gq * gq;
        p[j] -= user_rate * gp;
        q[j] -= item_rate * gq;
      }
      q[kRank] += item_squares / kRank;
      if (i + 1 == cell.size() || cell[i + 1].user != cell[i].user) p[kRank] += user_squares / kRank;
    }
  }
};

// A cell sorted by user, as the kernels take it: (u, i) for each u < users, i < items that
// keep(u, i) holds for, each rating uniform in (−spread, spread).
template <class Keep>
std::vector<mf::CellRating> some_ratings(std::uint32_t users, std::uint32_t items, float spread, std::mt19937& rng, Keep keep) {
  std::uniform_real_distribution<float> unit(-1.0f, 1.0f);
  std::vector<mf::CellRating> cell;
  for (std::uint32_t u = 0; u < users; ++u)
    for (std::uint32_t i = 0; i < items; ++i)
      if (keep(u, i)) cell.push_back({u, static_cast<std::uint16_t>(i), spread * unit(rng)});
  return cell;
}

}  // namespace

TEST_CASE("AdaGrad on ratings of spread σ takes LIBMF's steps on the ratings divided by σ") {
  const float sigma = 2.5f, eta = 0.1f, lambda = 0.05f;
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> unit(-1.0f, 1.0f);
  const std::uint32_t users = 6, items = 9;
  const std::vector<mf::CellRating> cell =
      some_ratings(users, items, 3 * sigma, rng, [](std::uint32_t u, std::uint32_t i) { return (u + 2 * i) % 3 != 0; });

  // gyre's rows in the ratings' units (factors ×√σ, sums 1), the reference's in LIBMF's.
  std::vector<float> user_rows(users * kStride, 0.0f), item_rows(items * kStride, 0.0f);
  Reference ref{std::vector<double>(users * (kRank + 1)), std::vector<double>(items * (kRank + 1))};
  auto start = [&](std::vector<float>& rows, std::vector<double>& scaled, std::uint32_t n) {
    for (std::uint32_t r = 0; r < n; ++r) {
      for (std::size_t j = 0; j < kRank; ++j) {
        rows[r * kStride + j] = 0.5f * unit(rng);
        scaled[r * (kRank + 1) + j] = rows[r * kStride + j] / std::sqrt(double{sigma});
      }
      rows[r * kStride + kWidth + mf::kFactorSumAt] = 1.0f;
      scaled[r * (kRank + 1) + kRank] = 1.0;
    }
  };
  start(user_rows, ref.users, users);
  start(item_rows, ref.items, items);

  mf::SgdStep s{eta / sigma, lambda, 0.0f, 0.0f, kWidth, kStride, false};
  s.adagrad = true;
  s.bias_rate = eta;
  s.factor_sum_scale = 1.0f / (kRank * sigma * sigma * sigma);
  s.bias_sum_scale = 1.0f / (sigma * sigma);
  for (int pass = 0; pass < 3; ++pass) {
    mf::sgd_cell(mf::Cell{cell}, user_rows.data(), item_rows.data(), s);
    ref.pass(cell, eta, lambda, sigma);
  }
  auto expect_scaled = [&](const std::vector<float>& rows, const std::vector<double>& scaled, std::uint32_t n) {
    for (std::uint32_t r = 0; r < n; ++r) {
      CAPTURE(r);
      for (std::size_t j = 0; j < kRank; ++j)
        CHECK(rows[r * kStride + j] == doctest::Approx(scaled[r * (kRank + 1) + j] * std::sqrt(double{sigma})).epsilon(1e-4));
      for (std::size_t j = kRank; j < kWidth; ++j) CHECK(rows[r * kStride + j] == 0.0f);  // padding stays 0
      CHECK(rows[r * kStride + kWidth + mf::kFactorSumAt] == doctest::Approx(scaled[r * (kRank + 1) + kRank]).epsilon(1e-4));
      CHECK(rows[r * kStride + kWidth + mf::kFactorSumAt] > 1.0f);
    }
  };
  expect_scaled(user_rows, ref.users, users);
  expect_scaled(item_rows, ref.items, items);
}

TEST_CASE("AdaGrad passes repeat bit for bit, and a row's sum grows with every pass") {
  std::vector<mf::CellRating> cell{{0, 0, 1.0f}, {0, 1, -1.0f}, {1, 0, 0.5f}};
  auto run = [&](int passes) {
    std::vector<float> users(2 * kStride, 0.1f), items(2 * kStride, 0.1f);
    for (std::size_t r = 0; r < 2; ++r) {
      for (std::size_t j = kRank; j < kStride; ++j) users[r * kStride + j] = items[r * kStride + j] = 0.0f;
      users[r * kStride + kWidth + mf::kFactorSumAt] = items[r * kStride + kWidth + mf::kFactorSumAt] = 1.0f;
    }
    mf::SgdStep s{0.1f, 0.01f, 0.0f, 0.0f, kWidth, kStride, false};
    s.adagrad = true;
    s.factor_sum_scale = 1.0f / kRank;
    std::vector<float> sums;  // user 0's, after each pass
    for (int p = 0; p < passes; ++p) {
      mf::sgd_cell(mf::Cell{cell}, users.data(), items.data(), s);
      sums.push_back(users[kWidth + mf::kFactorSumAt]);
    }
    return std::make_pair(users, sums);
  };
  const auto [a, sums] = run(4);
  const auto [b, again] = run(4);
  CHECK(a == b);
  CHECK(sums == again);
  for (std::size_t p = 1; p < sums.size(); ++p) CHECK(sums[p] > sums[p - 1]);  // so its rate η/√G falls
}

TEST_CASE("AdaGrad's first epoch on its first columns: the rest predict but keep their values, and the sums average the updated") {
  // Rank 12 in rows 16 wide; the pass updates columns 0-7 only (MfConfig::first_epoch_columns).
  constexpr std::size_t rank = 12, width = 16, stride = 24, updated = 8;
  const float eta = 0.1f, lambda = 0.05f;
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> unit(-1.0f, 1.0f);
  const std::uint32_t users = 4, items = 5;
  const std::vector<mf::CellRating> cell =
      some_ratings(users, items, 2, rng, [](std::uint32_t u, std::uint32_t i) { return (u + i) % 2 == 0; });
  auto start = [&](std::uint32_t n) {
    std::vector<float> rows(n * stride, 0.0f);
    for (std::uint32_t r = 0; r < n; ++r) {
      for (std::size_t j = 0; j < rank; ++j) rows[r * stride + j] = 0.5f * unit(rng);
      rows[r * stride + width + mf::kFactorSumAt] = 1.0f;
    }
    return rows;
  };
  std::vector<float> user_rows = start(users), item_rows = start(items);
  // The reference in double, as the first test's, over the same rows.
  std::vector<double> p_ref(user_rows.begin(), user_rows.end()), q_ref(item_rows.begin(), item_rows.end());
  double user_rate = 0, user_squares = 0;
  for (std::size_t i = 0; i < cell.size(); ++i) {
    double* p = &p_ref[cell[i].user * stride];
    double* q = &q_ref[cell[i].row * stride];
    if (i == 0 || cell[i].user != cell[i - 1].user) {
      user_rate = eta / std::sqrt(p[width + mf::kFactorSumAt]);
      user_squares = 0;
    }
    double dot = 0;
    for (std::size_t j = 0; j < rank; ++j) dot += p[j] * q[j];  // every column predicts
    const double e = cell[i].value - dot;
    const double item_rate = eta / std::sqrt(q[width + mf::kFactorSumAt]);
    double item_squares = 0;
    for (std::size_t j = 0; j < updated; ++j) {
      const double gp = lambda * p[j] - e * q[j];
      const double gq = lambda * q[j] - e * p[j];
      user_squares += gp * gp;
      item_squares += gq * gq;
      p[j] -= user_rate * gp;
      q[j] -= item_rate * gq;
    }
    q[width + mf::kFactorSumAt] += item_squares / updated;
    if (i + 1 == cell.size() || cell[i + 1].user != cell[i].user) p[width + mf::kFactorSumAt] += user_squares / updated;
  }
  const std::vector<float> users_before = user_rows, items_before = item_rows;
  mf::SgdStep s{eta, lambda, 0.0f, 0.0f, width, stride, false};
  s.adagrad = true;
  s.factor_sum_scale = 1.0f / updated;
  s.updated_width = updated;
  mf::sgd_cell(mf::Cell{cell}, user_rows.data(), item_rows.data(), s);
  auto expect = [&](const std::vector<float>& rows, const std::vector<float>& before, const std::vector<double>& ref, std::uint32_t n) {
    for (std::uint32_t r = 0; r < n; ++r) {
      CAPTURE(r);
      for (std::size_t j = 0; j < updated; ++j) CHECK(rows[r * stride + j] == doctest::Approx(ref[r * stride + j]).epsilon(1e-5));
      for (std::size_t j = updated; j < width; ++j) CHECK(rows[r * stride + j] == before[r * stride + j]);
      CHECK(rows[r * stride + width + mf::kFactorSumAt] == doctest::Approx(ref[r * stride + width + mf::kFactorSumAt]).epsilon(1e-5));
    }
  };
  expect(user_rows, users_before, p_ref, users);
  expect(item_rows, items_before, q_ref, items);
  CHECK(user_rows != users_before);
}
