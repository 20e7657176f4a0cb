// apps/mlp/mlp/network.hpp — a one-hidden-layer perceptron (ReLU, softmax cross-entropy) over a flat parameter vector.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "app/ps_sgd.hpp"
#include "mlp/dataset.hpp"

namespace gyre::mlp {

// inputs → hidden (ReLU) → classes (softmax). The parameters, flat, in this order: W1 (hidden ×
// inputs, row-major), b1 (hidden), W2 (classes × hidden, row-major), b2 (classes). Inputs are
// multiplied by `input_scale` first (1/16 for the digits' 0–16 pixels).
struct Shape {
  int inputs = 64;
  int hidden = 32;
  int classes = 10;
  double input_scale = 1;

  std::size_t parameters() const;
};

// Where each layer's parameters begin: the hidden layer's (W1, b1) at 0, the output layer's
// (W2, b2) after them.
std::vector<std::size_t> layer_starts(const Shape& shape);

// Glorot-uniform weights from `seed`, zero biases.
std::vector<double> initial_parameters(const Shape& shape, std::uint64_t seed);

// Mean cross-entropy + l2/2·(‖W1‖² + ‖W2‖²) and accuracy (argmax) over every sample of `set`.
app::ps_sgd::Fit evaluate(const Shape& shape, std::span<const double> parameters, const Dataset& set, double l2);

// Σ over `rows` of the cross-entropy (no penalty), and its gradient added into `gradient`
// (as long as the parameters) by backpropagation.
double add_gradient(const Shape& shape, std::span<const double> parameters, const Dataset& set,
                    std::span<const std::uint32_t> rows, std::span<double> gradient);

// Adds l2·W to the gradient of the weights W1 and W2 (the biases carry no penalty).
void add_weight_penalty(const Shape& shape, std::span<const double> parameters, double l2, std::span<double> gradient);

}  // namespace gyre::mlp
