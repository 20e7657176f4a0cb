// tests/apps/lasso/column_stats_test.cpp — the scheduler's column statistics from the shards' sums: those of the whole matrix, computed here textbook-fashion on dense columns.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "gyre/data/regression_partition.hpp"
#include "lasso/column_stats.hpp"

using namespace gyre;
using namespace gyre::lasso;

namespace {

// Sparse rows; column 0 has a large mean and a tiny spread (digits a Σx² − nμ² would lose),
// column 1 is in every row, column 2 never appears, column 3 is one constant, the rest sparse
// with negative and positive values.
data::RegressionSet mixed(std::uint64_t n, std::uint32_t p, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal;
  std::uniform_real_distribution<double> uniform;
  data::RegressionSet set;
  set.features = p;
  for (std::uint64_t i = 0; i < n; ++i) {
    std::vector<std::uint32_t> cols;
    std::vector<double> values;
    for (std::uint32_t j = 0; j < p; ++j) {
      double x = 0;
      if (j == 0) x = 1e6 + 1e-3 * normal(rng);
      else if (j == 1) x = 3 + normal(rng);
      else if (j == 2) continue;
      else if (j == 3) x = 7;
      else if (uniform(rng) < 0.2) x = normal(rng) * static_cast<double>(j);
      if (x == 0) continue;
      cols.push_back(j);
      values.push_back(x);
    }
    set.add_row(i, normal(rng) + 10, cols, values);
  }
  return set;
}

struct ReferenceStats {
  double y_offset = 0;
  std::vector<double> mean, centred, square, low, high;
};

// Dense columns, two passes in long double.
ReferenceStats reference(const data::RegressionSet& set, bool intercept) {
  const std::size_t n = set.samples(), p = set.features;
  std::vector<std::vector<double>> x(p, std::vector<double>(n, 0.0));
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t e = set.row_begin[i]; e < set.row_begin[i + 1]; ++e) x[set.cols[e]][i] = set.values[e];
  ReferenceStats r;
  long double ys = 0;
  for (double y : set.y) ys += y;
  r.y_offset = intercept ? static_cast<double>(ys / n) : 0.0;
  for (std::size_t j = 0; j < p; ++j) {
    long double s = 0, sq = 0;
    for (double v : x[j]) s += v, sq += static_cast<long double>(v) * v;
    const long double mu = intercept ? s / n : 0;
    long double c = 0;
    for (double v : x[j]) c += (v - mu) * (v - mu);
    r.mean.push_back(static_cast<double>(mu));
    r.centred.push_back(static_cast<double>(c));
    r.square.push_back(static_cast<double>(sq));
    r.low.push_back(*std::min_element(x[j].begin(), x[j].end()));
    r.high.push_back(*std::max_element(x[j].begin(), x[j].end()));
  }
  return r;
}

void near(double got, double want, double tol) {
  CHECK(std::abs(got - want) <= tol * std::max(1.0, std::abs(want)));
}

}  // namespace

TEST_CASE("statistics folded from 1, 2, 3 and 7 shards are the whole matrix's") {
  const data::RegressionSet set = mixed(200, 12, 5);
  for (const bool intercept : {true, false}) {
    for (const bool standardize : {true, false}) {
      const ReferenceStats want = reference(set, intercept);
      for (const std::uint32_t parts : {1u, 2u, 3u, 7u}) {
        CAPTURE(intercept);
        CAPTURE(standardize);
        CAPTURE(parts);
        const auto shards = data::shard_rows(set, parts);
        std::vector<ShardColumnSums> sums;
        for (const auto& s : shards) sums.push_back(shard_column_sums(s));
        const ColumnStats got = fold_column_stats(sums, intercept, standardize);
        REQUIRE(got.features() == set.features);
        CHECK(got.samples == set.samples());
        near(got.y_offset, want.y_offset, 1e-14);
        for (std::uint32_t j = 0; j < set.features; ++j) {
          CAPTURE(j);
          near(got.mean[j], want.mean[j], 1e-14);
          near(got.square[j], want.square[j], 1e-13);
          CHECK(got.low[j] == want.low[j]);
          CHECK(got.high[j] == want.high[j]);
          const double n = static_cast<double>(set.samples());
          const bool usable = want.centred[j] > 1e-300 && std::sqrt(want.centred[j] / n) > 1e-150;
          // Column 3 (constant) is unusable only with an intercept; column 2 (empty) never is.
          CHECK(got.usable[j] == (usable ? 1 : 0));
          if (!usable) continue;
          const double scale = standardize ? std::sqrt(want.centred[j] / n) : 1.0;
          // Column 0's spread is 1e-9 of its mean: the centred sums keep it to about 1e-7.
          near(got.scale[j], scale, j == 0 ? 1e-6 : 1e-13);
          near(got.curvature[j] * got.scale[j] * got.scale[j], want.centred[j] / n, j == 0 ? 1e-6 : 1e-13);
        }
        if (parts == 1) {  // one shard: the one-set statistics, bit for bit
          const ColumnStats whole = compute_column_stats(set, intercept, standardize);
          CHECK(whole.mean == got.mean);
          CHECK(whole.scale == got.scale);
          CHECK(whole.curvature == got.curvature);
        }
      }
    }
  }
}

TEST_CASE("the shards' order fixes the bits: the same shards fold to the same statistics; shards that disagree are refused") {
  const data::RegressionSet set = mixed(90, 8, 9);
  const auto shards = data::shard_rows(set, 3);
  std::vector<ShardColumnSums> sums;
  for (const auto& s : shards) sums.push_back(shard_column_sums(s));
  const ColumnStats a = fold_column_stats(sums, true, true), b = fold_column_stats(sums, true, true);
  CHECK(a.mean == b.mean);
  CHECK(a.curvature == b.curvature);
  sums[1].sum.pop_back();
  CHECK_THROWS_AS(fold_column_stats(sums, true, true), std::invalid_argument);
}

TEST_CASE("an empty shard adds nothing, and leaves the extent to the others") {
  data::RegressionSet set = mixed(40, 6, 2);
  data::RegressionSet empty;
  empty.features = set.features;
  const ShardColumnSums sums[] = {shard_column_sums(empty), shard_column_sums(set)};
  const ColumnStats folded = fold_column_stats(sums, true, false);
  const ColumnStats whole = compute_column_stats(set, true, false);
  CHECK(folded.low == whole.low);
  CHECK(folded.high == whole.high);
  CHECK(folded.samples == whole.samples);
  for (std::uint32_t j = 0; j < set.features; ++j) near(folded.curvature[j], whole.curvature[j], 1e-14);
}
