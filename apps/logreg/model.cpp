// apps/logreg/model.cpp — log-loss, accuracy and gradients, computed stably in the margin.
#include "logreg/model.hpp"

#include <cmath>

namespace gyre::logreg {
namespace {

double margin(const data::RegressionSet& set, std::uint64_t i, std::span<const double> w, double bias) {
  const auto cols = set.row_cols(i);
  const auto vals = set.row_values(i);
  double z = bias;
  for (std::size_t k = 0; k < cols.size(); ++k) z += w[cols[k]] * vals[k];
  return z;
}

bool positive(double y) { return y > 0; }

}  // namespace

Fit evaluate(const data::RegressionSet& set, std::span<const double> w, double bias, double l2) {
  double loss = 0;
  std::uint64_t right = 0;
  for (std::uint64_t i = 0; i < set.samples(); ++i) {
    const double z = margin(set, i, w, bias);
    const double s = positive(set.y[i]) ? z : -z;  // log(1 + e^{−s}), without overflow
    loss += s > 0 ? std::log1p(std::exp(-s)) : -s + std::log1p(std::exp(s));
    right += (z > 0) == positive(set.y[i]);
  }
  double norm = 0;
  for (const double x : w) norm += x * x;
  const auto n = static_cast<double>(std::max<std::uint64_t>(set.samples(), 1));
  return {loss / n + 0.5 * l2 * norm, static_cast<double>(right) / n};
}

void add_gradient(const data::RegressionSet& set, std::span<const std::uint32_t> rows, std::span<const double> w,
                  double bias, std::span<double> gradient, double& bias_gradient) {
  for (const auto i : rows) {
    const double z = margin(set, i, w, bias);
    const double p = z >= 0 ? 1 / (1 + std::exp(-z)) : std::exp(z) / (1 + std::exp(z));
    const double g = p - (positive(set.y[i]) ? 1.0 : 0.0);
    const auto cols = set.row_cols(i);
    const auto vals = set.row_values(i);
    for (std::size_t k = 0; k < cols.size(); ++k) gradient[cols[k]] += g * vals[k];
    bias_gradient += g;
  }
}

}  // namespace gyre::logreg
