// apps/mlp/network.cpp — forward pass, loss and backpropagation of the one-hidden-layer perceptron, with Eigen maps over the flat parameters.
#include "mlp/network.hpp"

#include <cmath>
#include <stdexcept>

#include "gyre/base/random.hpp"

namespace gyre::mlp {
namespace {

using Matrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using ConstMap = Eigen::Map<const Matrix>;
using Map = Eigen::Map<Matrix>;
using ConstVector = Eigen::Map<const Eigen::VectorXd>;
using Vector = Eigen::Map<Eigen::VectorXd>;

// Where each piece starts in the flat vector.
struct Offsets {
  std::size_t w1 = 0, b1, w2, b2, end;
  explicit Offsets(const Shape& s) {
    const auto in = static_cast<std::size_t>(s.inputs), h = static_cast<std::size_t>(s.hidden),
               k = static_cast<std::size_t>(s.classes);
    b1 = w1 + h * in;
    w2 = b1 + h;
    b2 = w2 + k * h;
    end = b2 + k;
  }
};

void check(const Shape& s, std::span<const double> p, const Dataset& set) {
  if (p.size() != s.parameters()) throw std::invalid_argument("mlp: parameter vector of the wrong size");
  if (set.features() != s.inputs || set.classes != s.classes)
    throw std::invalid_argument("mlp: the data has " + std::to_string(set.features()) + " features and " +
                                std::to_string(set.classes) + " classes, the network " + std::to_string(s.inputs) +
                                " and " + std::to_string(s.classes));
}

// The rows' forward pass: hidden activations (after ReLU) and log-probabilities, one row per sample.
struct Forward {
  Matrix x, hidden, log_p;
};

Forward forward(const Shape& s, std::span<const double> p, const Dataset& set, std::span<const std::uint32_t> rows) {
  const Offsets o(s);
  const ConstMap w1(p.data() + o.w1, s.hidden, s.inputs), w2(p.data() + o.w2, s.classes, s.hidden);
  const ConstVector b1(p.data() + o.b1, s.hidden), b2(p.data() + o.b2, s.classes);
  Forward f;
  f.x.resize(static_cast<Eigen::Index>(rows.size()), s.inputs);
  for (std::size_t r = 0; r < rows.size(); ++r) f.x.row(static_cast<Eigen::Index>(r)) = set.x.row(rows[r]) * s.input_scale;
  f.hidden = ((f.x * w1.transpose()).rowwise() + b1.transpose()).cwiseMax(0.0);
  f.log_p = (f.hidden * w2.transpose()).rowwise() + b2.transpose();
  for (Eigen::Index r = 0; r < f.log_p.rows(); ++r) {  // log-softmax, shifted by the max so exp cannot overflow
    auto z = f.log_p.row(r);
    const double m = z.maxCoeff();
    z.array() -= m + std::log((z.array() - m).exp().sum());
  }
  return f;
}

std::vector<std::uint32_t> all_rows(const Dataset& set) {
  std::vector<std::uint32_t> rows(static_cast<std::size_t>(set.samples()));
  for (std::size_t i = 0; i < rows.size(); ++i) rows[i] = static_cast<std::uint32_t>(i);
  return rows;
}

}  // namespace

std::size_t Shape::parameters() const {
  if (inputs < 1 || hidden < 1 || classes < 2) throw std::invalid_argument("mlp: inputs and hidden ≥ 1, classes ≥ 2");
  return Offsets(*this).end;
}

std::vector<std::size_t> layer_starts(const Shape& s) {
  const Offsets o(s);
  return {o.w1, o.w2};
}

std::vector<double> initial_parameters(const Shape& s, std::uint64_t seed) {
  const Offsets o(s);
  std::vector<double> p(s.parameters(), 0.0);
  Random random(seed, 0x6d6c70);
  const auto fill = [&](std::size_t from, std::size_t to, int fan_in, int fan_out) {
    const double a = std::sqrt(6.0 / (fan_in + fan_out));
    for (std::size_t i = from; i < to; ++i) p[i] = a * (2 * random.uniform() - 1);
  };
  fill(o.w1, o.b1, s.inputs, s.hidden);
  fill(o.w2, o.b2, s.hidden, s.classes);
  return p;
}

app::ps_sgd::Fit evaluate(const Shape& s, std::span<const double> p, const Dataset& set, double l2) {
  check(s, p, set);
  const Offsets o(s);
  const auto rows = all_rows(set);
  const auto f = forward(s, p, set, rows);
  double loss = 0;
  std::int64_t right = 0;
  for (Eigen::Index r = 0; r < f.log_p.rows(); ++r) {
    const int label = set.labels[static_cast<std::size_t>(r)];
    loss -= f.log_p(r, label);
    Eigen::Index best = 0;
    f.log_p.row(r).maxCoeff(&best);
    right += best == label;
  }
  const double norm = ConstVector(p.data() + o.w1, static_cast<Eigen::Index>(o.b1)).squaredNorm() +
                      ConstVector(p.data() + o.w2, static_cast<Eigen::Index>(o.b2 - o.w2)).squaredNorm();
  const auto n = static_cast<double>(std::max<std::int64_t>(set.samples(), 1));
  return {loss / n + 0.5 * l2 * norm, static_cast<double>(right) / n};
}

double add_gradient(const Shape& s, std::span<const double> p, const Dataset& set, std::span<const std::uint32_t> rows,
                    std::span<double> gradient) {
  check(s, p, set);
  if (gradient.size() != p.size()) throw std::invalid_argument("mlp: gradient of the wrong size");
  const Offsets o(s);
  const ConstMap w2(p.data() + o.w2, s.classes, s.hidden);
  auto f = forward(s, p, set, rows);
  double loss = 0;
  // ∂/∂logits of the cross-entropy: softmax − one-hot.
  Matrix d_out = f.log_p.array().exp().matrix();
  for (std::size_t r = 0; r < rows.size(); ++r) {
    const auto i = static_cast<Eigen::Index>(r);
    const int label = set.labels[rows[r]];
    loss -= f.log_p(i, label);
    d_out(i, label) -= 1;
  }
  Matrix d_hidden = (d_out * w2).cwiseProduct((f.hidden.array() > 0).cast<double>().matrix());
  Map(gradient.data() + o.w2, s.classes, s.hidden) += d_out.transpose() * f.hidden;
  Vector(gradient.data() + o.b2, s.classes) += d_out.colwise().sum().transpose();
  Map(gradient.data() + o.w1, s.hidden, s.inputs) += d_hidden.transpose() * f.x;
  Vector(gradient.data() + o.b1, s.hidden) += d_hidden.colwise().sum().transpose();
  return loss;
}

void add_weight_penalty(const Shape& s, std::span<const double> p, double l2, std::span<double> gradient) {
  const Offsets o(s);
  for (std::size_t j = o.w1; j < o.b1; ++j) gradient[j] += l2 * p[j];
  for (std::size_t j = o.w2; j < o.b2; ++j) gradient[j] += l2 * p[j];
}

}  // namespace gyre::mlp
