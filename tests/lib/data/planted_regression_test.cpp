// tests/lib/data/planted_regression_test.cpp — the planted regression generator: shape, determinism, correlation, and β recoverable where beta.tsv says.
#include <doctest/doctest.h>

#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include "gyre/data/planted_regression.hpp"
#include "gyre/data/regression.hpp"
#include "support/temp_dir.hpp"

using namespace gyre::data;
using gyre::test::read_text;
using gyre::test::TempDir;

namespace {

PlantedRegressionOptions planted_regression_options() {
  PlantedRegressionOptions o;
  o.samples = 3000;
  o.features = 60;
  o.nnz_per_row = 20;
  o.support = 5;
  o.correlation = 0.5;
  o.group_size = 6;
  o.noise = 0.1;
  o.seed = 11;
  return o;
}

// Solves the square system a·x = b in place (Gaussian elimination with partial pivoting).
std::vector<double> solve_linear(std::vector<std::vector<double>> a, std::vector<double> b) {
  const std::size_t n = b.size();
  for (std::size_t k = 0; k < n; ++k) {
    std::size_t p = k;
    for (std::size_t i = k + 1; i < n; ++i)
      if (std::fabs(a[i][k]) > std::fabs(a[p][k])) p = i;
    std::swap(a[k], a[p]);
    std::swap(b[k], b[p]);
    for (std::size_t i = k + 1; i < n; ++i) {
      const double f = a[i][k] / a[k][k];
      for (std::size_t j = k; j < n; ++j) a[i][j] -= f * a[k][j];
      b[i] -= f * b[k];
    }
  }
  std::vector<double> x(n);
  for (std::size_t k = n; k-- > 0;) {
    double s = b[k];
    for (std::size_t j = k + 1; j < n; ++j) s -= a[k][j] * x[j];
    x[k] = s / a[k][k];
  }
  return x;
}

}  // namespace

TEST_CASE("planted regression: shape, exact non-zeros per row, β with the asked support") {
  const auto o = planted_regression_options();
  const PlantedRegression d = generate_planted_regression(o);
  CHECK(d.set.samples() == o.samples);
  CHECK(d.set.features == o.features);
  CHECK(d.set.nnz() == o.samples * o.nnz_per_row);
  for (std::uint64_t i = 0; i < d.set.samples(); ++i) {
    const auto cols = d.set.row_cols(i);
    CHECK(cols.size() == o.nnz_per_row);
    CHECK(std::is_sorted(cols.begin(), cols.end()));
    CHECK(std::adjacent_find(cols.begin(), cols.end()) == cols.end());
    CHECK(d.set.sample_ids[i] == i);
  }
  std::size_t support = 0;
  for (const double b : d.beta)
    if (b != 0) {
      ++support;
      CHECK(std::fabs(b) >= 1.0);
      CHECK(std::fabs(b) < 2.0);
    }
  CHECK(support == o.support);

  auto dense = o;
  dense.nnz_per_row = 1000;  // >= features: every row dense
  dense.samples = 10;
  CHECK(generate_planted_regression(dense).set.nnz() == 10 * 60);
  auto half = o;
  half.nnz_per_row = 45;  // > features/2: the selection-sampling path
  half.samples = 10;
  CHECK(generate_planted_regression(half).set.nnz() == 10 * 45);
}

TEST_CASE("planted regression: deterministic in the seed, files identical") {
  TempDir dir;
  auto o = planted_regression_options();
  o.samples = 200;
  write_planted_regression(dir / "a", generate_planted_regression(o));
  write_planted_regression(dir / "b", generate_planted_regression(o));
  CHECK(read_text(dir / "a" / "data.libsvm") == read_text(dir / "b" / "data.libsvm"));
  CHECK(read_text(dir / "a" / "beta.tsv") == read_text(dir / "b" / "beta.tsv"));
  o.seed = 12;
  write_planted_regression(dir / "c", generate_planted_regression(o));
  CHECK(read_text(dir / "a" / "data.libsvm") != read_text(dir / "c" / "data.libsvm"));
  // The text reads back to the very same doubles.
  const PlantedRegression d = generate_planted_regression(planted_regression_options());
  write_planted_regression(dir / "d", d);
  const RegressionSet back = read_libsvm(dir / "d" / "data.libsvm");
  CHECK(back.values == d.set.values);
  CHECK(back.cols == d.set.cols);
  CHECK(back.y == d.set.y);
}

TEST_CASE("planted regression: columns of one group correlate as C², across groups not at all") {
  auto o = planted_regression_options();
  o.samples = 20000;
  o.features = 12;
  o.nnz_per_row = 12;  // dense, so every pair of columns is observed in every row
  o.correlation = 0.8;
  const RegressionSet s = generate_planted_regression(o).set;
  const auto corr = [&](std::uint32_t a, std::uint32_t b) {
    double sab = 0, saa = 0, sbb = 0;
    for (std::uint64_t i = 0; i < s.samples(); ++i) {
      const double x = s.values[s.row_begin[i] + a], y = s.values[s.row_begin[i] + b];
      sab += x * y, saa += x * x, sbb += y * y;
    }
    return sab / std::sqrt(saa * sbb);
  };
  CHECK(corr(0, 5) == doctest::Approx(0.64).epsilon(0.05));  // same group (size 6)
  CHECK(std::fabs(corr(0, 6)) < 0.05);                        // different groups
}

TEST_CASE("planted regression: least squares on the support in beta.tsv recovers β within noise") {
  TempDir dir;
  const auto o = planted_regression_options();
  write_planted_regression(dir.path(), generate_planted_regression(o));
  std::vector<std::uint32_t> support;
  std::vector<double> truth;
  std::istringstream lines(read_text(dir / "beta.tsv"));
  std::uint32_t index = 0;
  double value = 0;
  while (lines >> index >> value) {
    support.push_back(index - 1);  // 1-based, as in LibSVM
    truth.push_back(value);
  }
  REQUIRE(support.size() == o.support);

  const RegressionSet s = read_libsvm(dir / "data.libsvm");
  const std::size_t k = support.size();
  std::vector<std::vector<double>> xtx(k, std::vector<double>(k, 0.0));
  std::vector<double> xty(k, 0.0), row(k);
  for (std::uint64_t i = 0; i < s.samples(); ++i) {
    std::fill(row.begin(), row.end(), 0.0);
    for (std::uint64_t e = s.row_begin[i]; e < s.row_begin[i + 1]; ++e)
      for (std::size_t a = 0; a < k; ++a)
        if (s.cols[e] == support[a]) row[a] = s.values[e];
    for (std::size_t a = 0; a < k; ++a) {
      xty[a] += row[a] * s.y[i];
      for (std::size_t b = 0; b < k; ++b) xtx[a][b] += row[a] * row[b];
    }
  }
  const std::vector<double> fit = solve_linear(xtx, xty);
  for (std::size_t a = 0; a < k; ++a) CHECK(fit[a] == doctest::Approx(truth[a]).epsilon(0.02));
  // And the residual is the noise alone: y - Xβ has standard deviation σ.
  double rss = 0;
  for (std::uint64_t i = 0; i < s.samples(); ++i) {
    double pred = 0;
    for (std::uint64_t e = s.row_begin[i]; e < s.row_begin[i + 1]; ++e)
      for (std::size_t a = 0; a < k; ++a)
        if (s.cols[e] == support[a]) pred += s.values[e] * truth[a];
    rss += (s.y[i] - pred) * (s.y[i] - pred);
  }
  CHECK(std::sqrt(rss / static_cast<double>(s.samples())) == doctest::Approx(o.noise).epsilon(0.1));
}
