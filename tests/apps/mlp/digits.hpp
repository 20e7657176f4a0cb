// tests/apps/mlp/digits.hpp — the digits the MLP tests train on: the fetched set if it is there, else a planted stand-in.
#pragma once

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "gyre/base/random.hpp"
#include "mlp/dataset.hpp"

namespace gyre::test {

// Written by tools/data/fetch-digits.sh (tools/dev/test.sh runs it) from python3-sklearn; the
// location follows that script's default.
inline std::filesystem::path digits_dir() {
  if (const char* dir = std::getenv("GYRE_DATA_DIR")) return std::filesystem::path(dir) / "digits";
  const char* home = std::getenv("HOME");
  return std::filesystem::path(home ? home : "/root") / ".cache/gyre/digits";
}

// Ten classes of 64 "pixels" 0–16: each class a random prototype, each sample its prototype
// with noise of s.d. 3 clipped to 0–16 (about as separable as the digits).
inline mlp::Dataset planted_digits(std::int64_t samples, std::uint64_t seed) {
  Random random(seed, 0);
  mlp::Dataset set;
  set.classes = 10;
  set.x.resize(samples, 64);
  set.labels.resize(static_cast<std::size_t>(samples));
  Eigen::MatrixXd prototypes(10, 64);
  Random protos(1234, 0);
  for (Eigen::Index i = 0; i < prototypes.size(); ++i) prototypes.data()[i] = protos.below(17);
  for (std::int64_t i = 0; i < samples; ++i) {
    const int k = static_cast<int>(random.below(10));
    set.labels[static_cast<std::size_t>(i)] = k;
    for (int j = 0; j < 64; ++j) set.x(i, j) = std::clamp(prototypes(k, j) + 3 * random.normal(), 0.0, 16.0);
  }
  return set;
}

}  // namespace gyre::test
