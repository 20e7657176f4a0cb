// gyre/data/planted_regression.cpp — deterministic generator of sparse, group-correlated regression data.
#include "gyre/data/planted_regression.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <stdexcept>
#include <string>
#include <unordered_set>

#include "gyre/base/output_file.hpp"
#include "gyre/base/random.hpp"
#include "gyre/data/ratings.hpp"

namespace gyre::data {
namespace {

// Independent streams per concern, so that e.g. changing the noise does not move X or β.
enum RegressionStream : std::uint64_t { kColumns, kValues, kSupport, kBeta, kTargetNoise };

void check(const PlantedRegressionOptions& o) {
  const auto fail = [](const std::string& what) { throw std::invalid_argument("planted regression: " + what); };
  if (o.samples == 0 || o.features == 0 || o.nnz_per_row == 0 || o.group_size == 0)
    fail("samples, features, non-zeros per row and group size must be at least 1");
  if (o.features > kMaxId + 1) fail("features must be at most " + std::to_string(kMaxId + 1));
  if (o.samples > UINT32_MAX) fail("samples must be below 2^32");
  if (o.support > o.features) fail("the support (" + std::to_string(o.support) + ") exceeds the features");
  if (!(o.correlation >= 0 && o.correlation <= 1)) fail("correlation must be in [0, 1]");
  if (!(o.noise >= 0) || !std::isfinite(o.noise)) fail("noise must be a finite number >= 0");
}

// Row i's columns, sorted, into `out` (see the header for the three regimes).
class ColumnDrawer {
 public:
  explicit ColumnDrawer(const PlantedRegressionOptions& o)
      : m_(o.features), z_(std::min(o.nnz_per_row, o.features)), g_(o.group_size),
        groups_((o.features + o.group_size - 1) / o.group_size), stamp_(groups_, 0) {}

  void draw(Random& rng, std::uint64_t row, std::vector<std::uint32_t>& out) {
    out.clear();
    if (z_ == m_) {
      for (std::uint32_t j = 0; j < m_; ++j) out.push_back(j);
      return;
    }
    if (2 * std::uint64_t{z_} > m_) {
      // Dense-ish: rejection over groups would crawl; select exactly z of m (Knuth's algorithm S).
      for (std::uint32_t j = 0; j < m_ && out.size() < z_; ++j)
        if (static_cast<double>(m_ - j) * rng.uniform() < static_cast<double>(z_ - out.size())) out.push_back(j);
      return;
    }
    // Stamps mark the groups taken in this row without clearing the array for every row.
    const std::uint64_t mark = row + 1;
    while (out.size() < z_) {
      const auto g = static_cast<std::uint32_t>(rng.below(groups_));
      if (stamp_[g] == mark) continue;
      stamp_[g] = mark;
      const std::uint32_t end = static_cast<std::uint32_t>(std::min<std::uint64_t>(std::uint64_t{g + 1} * g_, m_));
      for (std::uint32_t j = g * g_; j < end; ++j) out.push_back(j);
    }
    // A uniform z-subset of the covered columns: a partial Fisher-Yates shuffle.
    for (std::size_t k = 0; k < z_; ++k) std::swap(out[k], out[k + rng.below(out.size() - k)]);
    out.resize(z_);
    std::sort(out.begin(), out.end());
  }

 private:
  std::uint32_t m_, z_, g_, groups_;
  std::vector<std::uint64_t> stamp_;
};

// k distinct values below n, sorted (Floyd's algorithm: k draws whatever n is).
std::vector<std::uint32_t> distinct_below(Random& rng, std::uint32_t n, std::uint32_t k) {
  std::unordered_set<std::uint32_t> chosen;
  std::vector<std::uint32_t> out;
  out.reserve(k);
  for (std::uint32_t j = n - k; j < n; ++j) {
    const auto t = static_cast<std::uint32_t>(rng.below(std::uint64_t{j} + 1));
    const std::uint32_t pick = chosen.count(t) ? j : t;
    chosen.insert(pick);
    out.push_back(pick);
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

PlantedRegression generate_planted_regression(const PlantedRegressionOptions& o) {
  check(o);
  PlantedRegression out;
  out.beta.assign(o.features, 0.0);
  Random support_rng(o.seed, kSupport), beta_rng(o.seed, kBeta);
  for (const std::uint32_t j : distinct_below(support_rng, o.features, o.support)) {
    const double sign = beta_rng.below(2) == 0 ? -1.0 : 1.0;
    out.beta[j] = sign * (1.0 + beta_rng.uniform());
  }

  RegressionSet& set = out.set;
  set.features = o.features;
  const std::uint64_t z = std::min(o.nnz_per_row, o.features);
  set.cols.reserve(o.samples * z);
  set.values.reserve(o.samples * z);
  set.row_begin.reserve(o.samples + 1);
  set.y.reserve(o.samples);
  set.sample_ids.reserve(o.samples);

  const double c = o.correlation, own = std::sqrt(1.0 - c * c);
  ColumnDrawer columns(o);
  Random column_rng(o.seed, kColumns), value_rng(o.seed, kValues), noise_rng(o.seed, kTargetNoise);
  std::vector<std::uint32_t> row_cols;
  std::vector<double> row_values;
  for (std::uint64_t i = 0; i < o.samples; ++i) {
    columns.draw(column_rng, i, row_cols);
    row_values.clear();
    std::uint32_t group = UINT32_MAX;
    double factor = 0, dot = 0;
    for (const std::uint32_t j : row_cols) {
      if (j / o.group_size != group) {  // columns are sorted, so a group's columns are adjacent
        group = j / o.group_size;
        factor = value_rng.normal();
      }
      double x = std::round((c * factor + own * value_rng.normal()) * 1e4) / 1e4;
      if (x == 0) x = 1e-4;  // rare; keeps the row's non-zero count exact
      row_values.push_back(x);
      dot += x * out.beta[j];
    }
    set.add_row(i, dot + o.noise * noise_rng.normal(), row_cols, row_values);
  }
  return out;
}

void write_planted_regression(const std::filesystem::path& dir, const PlantedRegression& data) {
  if (data.beta.size() != data.set.features)
    throw std::invalid_argument("write_planted_regression: beta does not fit the features");
  std::filesystem::create_directories(dir);
  write_libsvm(dir / "data.libsvm", data.set);
  OutputFile out(dir / "beta.tsv");
  std::string buffer;
  char field[32];
  for (std::size_t j = 0; j < data.beta.size(); ++j) {
    if (data.beta[j] == 0) continue;
    buffer.append(field, std::to_chars(field, field + sizeof field, j + 1).ptr).push_back('\t');
    buffer.append(field, std::to_chars(field, field + sizeof field, data.beta[j]).ptr).push_back('\n');
  }
  out.stream().write(buffer.data(), static_cast<std::streamsize>(buffer.size()));
  out.commit();
}

}  // namespace gyre::data
