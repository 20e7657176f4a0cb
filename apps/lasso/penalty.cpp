// apps/lasso/penalty.cpp — the duality gap certificate of an elastic-net iterate.
#include "lasso/penalty.hpp"

namespace gyre::lasso {

Certificate certify(std::span<const double> gamma, std::span<const double> gradients, double rss, double residual_dot_y,
                    const Penalty& p) {
  Certificate c;
  double l1_norm = 0, l2_norm = 0, dual_norm = 0;
  for (std::size_t j = 0; j < gamma.size(); ++j) {
    l1_norm += std::abs(gamma[j]);
    l2_norm += gamma[j] * gamma[j];
    dual_norm = std::max(dual_norm, std::abs(gradients[j] - p.l2() * gamma[j]));
    c.kkt_violation = std::max(c.kkt_violation, kkt_violation(gamma[j], gradients[j], p));
  }
  c.objective = 0.5 * rss + p.l1() * l1_norm + 0.5 * p.l2() * l2_norm;
  const double scale = dual_norm > p.l1() ? p.l1() / dual_norm : 1.0;
  c.duality_gap = 0.5 * rss * (1 + scale * scale) + p.l1() * l1_norm - scale * residual_dot_y +
                  0.5 * p.l2() * (1 + scale * scale) * l2_norm;
  return c;
}

}  // namespace gyre::lasso
