// apps/logreg/logreg/model.hpp — the logistic model: loss, accuracy and minibatch gradients over sparse rows.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "app/ps_sgd.hpp"
#include "gyre/data/regression.hpp"

namespace gyre::logreg {

// Labels: y > 0 is class 1, anything else class 0 (so both {−1, 1} and {0, 1} files work).
// `weights` has at least set.features entries (a model trained on more features can score a
// set with fewer); the bias is separate.
// Fit: loss = mean log-loss + λ/2‖w‖² (bias not penalised), accuracy = share of samples on
// the right side of 0.5.
using Fit = app::ps_sgd::Fit;
Fit evaluate(const data::RegressionSet& set, std::span<const double> weights, double bias, double l2);

// Adds Σ_rows ∂logloss/∂w into `gradient` (as long as `weights`) and ∂/∂bias into `bias_gradient`;
// no penalty.
void add_gradient(const data::RegressionSet& set, std::span<const std::uint32_t> rows, std::span<const double> weights,
                  double bias, std::span<double> gradient, double& bias_gradient);

}  // namespace gyre::logreg
