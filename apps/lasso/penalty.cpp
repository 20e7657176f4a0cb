// apps/lasso/penalty.cpp — the duality gap certificate of an elastic-net iterate.
#include "lasso/penalty.hpp"

namespace gyre::lasso {

Certificate certify(std::span<const double> gamma, std::span<const double> gradients, double rss, double residual_dot_y,
                    const Penalty& p) {
  CoefficientSums sums;
  for (std::size_t j = 0; j < gamma.size(); ++j) sums.add(gamma[j], gradients[j], p);
  return certify(sums, rss, residual_dot_y, p);
}

Certificate certify(const CoefficientSums& sums, double rss, double residual_dot_y, const Penalty& p) {
  Certificate c;
  c.kkt_violation = sums.kkt_violation;
  const double l1_norm = sums.l1_norm, l2_norm = sums.l2_norm, dual_norm = sums.dual_norm;
  c.objective = 0.5 * rss + p.l1() * l1_norm + 0.5 * p.l2() * l2_norm;
  const double scale = dual_norm > p.l1() ? p.l1() / dual_norm : 1.0;
  c.duality_gap = 0.5 * rss * (1 + scale * scale) + p.l1() * l1_norm - scale * residual_dot_y +
                  0.5 * p.l2() * (1 + scale * scale) * l2_norm;
  return c;
}

}  // namespace gyre::lasso
