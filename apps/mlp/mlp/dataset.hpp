// apps/mlp/mlp/dataset.hpp — dense labelled samples for a classifier (the digits), and their reader with file:line errors.
#pragma once

#include <Eigen/Dense>

#include <cstdint>
#include <filesystem>
#include <vector>

namespace gyre::mlp {

// n samples × d features, one row per sample, and a class 0 … classes−1 per sample.
struct Dataset {
  Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> x;
  std::vector<int> labels;
  int classes = 0;

  std::int64_t samples() const noexcept { return static_cast<std::int64_t>(labels.size()); }
  int features() const noexcept { return static_cast<int>(x.cols()); }
};

// CSV without a header: "label,f1,...,fd" per line (commas, or blanks, between fields); blank
// lines and lines starting with '#' are skipped. The label must be an integer in
// 0 … classes−1; every line must have 1 + `features` fields (0: as many as the first sample
// has); values are finite numbers. Throws gyre::InputError naming file and line otherwise, and
// for a file without samples.
Dataset read_dataset(const std::filesystem::path& file, int classes, int features = 0);

}  // namespace gyre::mlp
