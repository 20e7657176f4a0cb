// tests/apps/mlp/mlp_network_test.cpp — the perceptron's backpropagation against finite differences; the data reader's file:line errors.
#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "gyre/base/input_error.hpp"
#include "gyre/base/random.hpp"
#include "mlp/network.hpp"
#include "support/input_errors.hpp"
#include "support/temp_dir.hpp"

using namespace gyre;

namespace {

// A set of `labels.size()` samples with features uniform in [lo, lo + width), for `shape`.
mlp::Dataset random_set(const mlp::Shape& shape, std::vector<int> labels, double lo, double width, Random& random) {
  mlp::Dataset set;
  set.classes = shape.classes;
  set.x.resize(static_cast<Eigen::Index>(labels.size()), shape.inputs);
  for (Eigen::Index i = 0; i < set.x.size(); ++i) set.x.data()[i] = lo + width * random.uniform();
  set.labels = std::move(labels);
  return set;
}

}  // namespace

TEST_CASE("the gradient of a tiny net matches central finite differences of the loss") {
  mlp::Shape shape{5, 4, 3, 0.5};
  Random random(7, 0);
  const auto set = random_set(shape, {0, 1, 2, 2, 1, 0}, -1, 4, random);
  auto p = mlp::initial_parameters(shape, 3);
  REQUIRE(p.size() == 5u * 4 + 4 + 4u * 3 + 3);
  for (double& v : p) v += 0.1 * random.normal();  // non-zero biases too
  const std::vector<std::uint32_t> rows{0, 1, 2, 3, 4, 5, 2};  // a repeated row counts twice
  std::vector<double> gradient(p.size(), 0.0);
  const double loss = mlp::add_gradient(shape, p, set, rows, gradient);
  CHECK(loss > 0);
  const double h = 1e-6;
  int checked = 0;
  for (std::size_t j = 0; j < p.size(); ++j) {
    auto plus = p, minus = p;
    plus[j] += h;
    minus[j] -= h;
    std::vector<double> unused(p.size(), 0.0);
    const double numeric = (mlp::add_gradient(shape, plus, set, rows, unused) - mlp::add_gradient(shape, minus, set, rows, unused)) / (2 * h);
    CAPTURE(j);
    CHECK(gradient[j] == doctest::Approx(numeric).epsilon(1e-5));
    ++checked;
  }
  CHECK(checked == 39);
  // evaluate: the mean of the same loss, and accuracy a share.
  const auto fit = mlp::evaluate(shape, p, set, 0);
  std::vector<double> g(p.size(), 0.0);
  const std::vector<std::uint32_t> all{0, 1, 2, 3, 4, 5};
  CHECK(fit.loss == doctest::Approx(mlp::add_gradient(shape, p, set, all, g) / 6));
  CHECK(fit.accuracy >= 0);
  CHECK(fit.accuracy <= 1);
}

TEST_CASE("the reader: label first, every line as wide as the first, labels in range, errors at file:line") {
  test::TempDir dir;
  test::write_text(dir / "ok.csv", "# comment\n3,0,1,2\n\n0,4,5,6\n");
  const auto set = mlp::read_dataset(dir / "ok.csv", 10);
  CHECK(set.samples() == 2);
  CHECK(set.features() == 3);
  CHECK(set.labels == std::vector<int>{3, 0});
  CHECK(set.x(1, 2) == 6);

  test::write_text(dir / "short.csv", "3,0,1,2\n1,0,1\n");
  auto e = test::catch_input_error([&] { mlp::read_dataset(dir / "short.csv", 10); });
  CHECK(e.thrown);
  CHECK(e.line == 2);
  CHECK(test::contains(e.message, "4 fields (a label and 3 features)"));
  e = test::catch_input_error([&] { mlp::read_dataset(dir / "ok.csv", 10, 64); });  // the test set must match the training set
  CHECK(e.line == 2);
  CHECK(test::contains(e.message, "65 fields"));

  test::write_text(dir / "label.csv", "3,0,1,2\n10,0,1,2\n");
  e = test::catch_input_error([&] { mlp::read_dataset(dir / "label.csv", 10); });
  CHECK(e.line == 2);
  CHECK(test::contains(e.message, "class label in [0, 9]"));
  test::write_text(dir / "label.csv", "3,0,1,2\n\n-1,0,1,2\n");
  e = test::catch_input_error([&] { mlp::read_dataset(dir / "label.csv", 10); });
  CHECK(e.line == 3);
  test::write_text(dir / "label.csv", "2.5,0,1,2\n");
  e = test::catch_input_error([&] { mlp::read_dataset(dir / "label.csv", 10); });
  CHECK(e.line == 1);
  test::write_text(dir / "value.csv", "1,0,nan,2\n");
  e = test::catch_input_error([&] { mlp::read_dataset(dir / "value.csv", 10); });
  CHECK(e.line == 1);
  CHECK(test::contains(e.message, "feature 2"));
  test::write_text(dir / "empty.csv", "# nothing\n");
  CHECK(test::catch_input_error([&] { mlp::read_dataset(dir / "empty.csv", 10); }).thrown);
}

TEST_CASE("the mean gradient plus the weight penalty is the gradient of evaluate's loss (biases unpenalised)") {
  mlp::Shape shape{3, 2, 2, 1};
  Random random(11, 0);
  const auto set = random_set(shape, {0, 1, 1, 0}, -1, 2, random);
  auto p = mlp::initial_parameters(shape, 5);
  for (double& v : p) v += 0.1 * random.normal();
  const double l2 = 0.3;
  std::vector<double> gradient(p.size(), 0.0);
  const std::vector<std::uint32_t> all{0, 1, 2, 3};
  mlp::add_gradient(shape, p, set, all, gradient);
  for (double& g : gradient) g /= 4;
  mlp::add_weight_penalty(shape, p, l2, gradient);
  const double h = 1e-6;
  for (std::size_t j = 0; j < p.size(); ++j) {
    auto plus = p, minus = p;
    plus[j] += h;
    minus[j] -= h;
    CAPTURE(j);
    CHECK(gradient[j] ==
          doctest::Approx((mlp::evaluate(shape, plus, set, l2).loss - mlp::evaluate(shape, minus, set, l2).loss) / (2 * h))
              .epsilon(1e-5));
  }
}
