// tests/apps/lasso/logistic_peer_test.cpp — the logistic loss reaches liblinear's L1-regularised logistic regression optimum (train -s 6) on the same data.
#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "gyre/data/regression.hpp"
#include "lasso/solver.hpp"
#include "logistic_checks.hpp"
#include "support/run_command.hpp"
#include "support/temp_dir.hpp"

using namespace gyre;
using namespace gyre_test;

namespace {

// Installed by tools/dev/install-deps.sh (Debian's liblinear-tools).
std::filesystem::path liblinear_train() {
  for (const char* path : {"/usr/bin/liblinear-train", "/usr/local/bin/liblinear-train"})
    if (std::filesystem::exists(path)) return path;
  return {};
}

// liblinear's weights, signed so that wᵀx > 0 predicts class 1 (its model lists the label it
// predicts for wᵀx > 0 first).
std::vector<double> liblinear_weights(const std::filesystem::path& model, std::uint32_t features) {
  std::ifstream in(model);
  std::string line;
  double sign = 1;
  while (std::getline(in, line) && line != "w") {
    std::istringstream fields(line);
    std::string key;
    fields >> key;
    if (key == "label") {
      double first = 0;
      fields >> first;
      sign = first == 1 ? 1.0 : -1.0;
    }
    if (key == "bias") {
      double bias = -1;
      fields >> bias;
      REQUIRE_MESSAGE(bias < 0, "the liblinear model has a bias term");
    }
  }
  std::vector<double> w(features, 0.0);
  for (std::uint32_t j = 0; j < features && std::getline(in, line); ++j) w[j] = sign * std::stod(line);
  return w;
}

}  // namespace

TEST_CASE("without an intercept the L1 logistic objective equals liblinear's (train -s 6) to 1e-6") {
  const auto train = liblinear_train();
  REQUIRE_MESSAGE(!train.empty(), "liblinear-train is missing: tools/dev/install-deps.sh installs liblinear-tools");
  gyre::test::TempDir dir;
  for (const std::uint64_t seed : {4, 6}) {
    const RegressionSet set = generated_classes(seed == 4 ? 600 : 150, seed == 4 ? 50 : 300, 0.1, seed);
    data::write_libsvm(dir / "data.libsvm", set);
    lasso::LassoConfig c;
    c.loss = lasso::Loss::logistic;
    c.intercept = false;
    c.path_length = 4;
    c.lambda_ratio = 0.05;
    c.tol = 1e-10;
    c.threads = 2;
    const auto run = lasso::solve_embedded(set, c);
    for (const auto& s : run.path) {
      CAPTURE(seed);
      CAPTURE(s.lambda);
      // liblinear minimises ‖w‖₁ + C·Σ log(1 + e^{−ỹwᵀx}), which is n·C·F at λ = 1/(n·C).
      const double cost = 1 / (static_cast<double>(set.samples()) * s.lambda);
      std::ostringstream c_text;
      c_text.precision(17);
      c_text << cost;
      const auto r = gyre::test::run_command({train.string(), "-s", "6", "-c", c_text.str(), "-e", "1e-12", "-q",
                                              (dir / "data.libsvm").string(), (dir / "model").string()});
      REQUIRE_MESSAGE(r.exit_code == 0, r.output);
      const auto theirs = logistic_objective(set, c, s.lambda, liblinear_weights(dir / "model", set.features), 0);
      const auto mine = logistic_objective(set, c, s.lambda, s.beta, s.intercept);
      CHECK(std::abs(mine - theirs) <= 1e-6 * theirs);
      CHECK(mine <= theirs * (1 + 1e-12));  // and no worse
    }
  }
}
