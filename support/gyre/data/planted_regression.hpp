// gyre/data/planted_regression.hpp — synthetic sparse linear regression with correlated features and a known sparse β.
#pragma once

#include <cstdint>
#include <filesystem>
#include <vector>

#include "gyre/data/regression.hpp"

namespace gyre::data {

struct PlantedRegressionOptions {
  std::uint64_t samples = 1000;
  std::uint32_t features = 1000;
  std::uint32_t nnz_per_row = 50;  // >= features: every row dense
  std::uint32_t support = 10;      // non-zeros of the true β, at most features
  double correlation = 0.5;        // C in [0, 1]
  std::uint32_t group_size = 10;   // features per correlated group
  double noise = 0.1;              // σ of the Gaussian noise on y
  std::uint64_t seed = 1;
};

struct PlantedRegression {
  RegressionSet set;          // sample ids 0..samples-1, no feature names
  std::vector<double> beta;   // the true β, dense, one per feature
};

// The construction, all draws from the portable Random of gyre/base/random.hpp:
//  - Features come in groups of group_size consecutive columns (group g = columns
//    [g·G, (g+1)·G), the last one possibly shorter).
//  - Row i's non-zero columns: all of them if nnz_per_row >= features; else, if nnz_per_row >
//    features/2, a uniform subset of nnz_per_row columns; else whole groups drawn uniformly
//    without replacement until they cover nnz_per_row columns, then a uniform subset of
//    nnz_per_row of those columns. So a row's non-zeros cluster in a few groups, and columns of
//    one group are often non-zero together.
//  - Row i draws a factor f_{i,g} ~ N(0, 1) for each group g it touches, and x_ij = C·f_{i,g} +
//    sqrt(1 - C²)·e_ij with e_ij ~ N(0, 1): every non-zero has unit variance, and two columns of
//    one group that are both non-zero in a row have correlation C² (C = 1: equal; C = 0:
//    independent). Values are rounded to 4 decimals, so data.libsvm stays short and reads
//    back to the very same doubles.
//  - β has `support` non-zeros at uniformly drawn columns, each with a random sign and a
//    magnitude uniform in [1, 2).
//  - y_i = Σ_j x_ij β_j + σ·ε_i with ε_i ~ N(0, 1), from the rounded x.
// Deterministic in the options (same seed → same bytes on every platform whose C library
// computes log, sin, cos and sqrt alike). Throws std::invalid_argument for impossible options.
PlantedRegression generate_planted_regression(const PlantedRegressionOptions& options);

// Writes, each file atomically (DIR is created):
//   DIR/data.libsvm  the samples in LibSVM form (see write_libsvm)
//   DIR/beta.tsv     the non-zeros of β, one per line "index<TAB>value", index 1-based as in
//                    LibSVM, by index, values in shortest round-trip form
void write_planted_regression(const std::filesystem::path& dir, const PlantedRegression& data);

}  // namespace gyre::data
