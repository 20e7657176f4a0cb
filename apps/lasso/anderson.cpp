// apps/lasso/anderson.cpp — the extrapolation's small least-squares solve.
#include "lasso/anderson.hpp"

#include <cmath>

namespace gyre::lasso {

std::optional<std::vector<double>> AndersonExtrapolation::record(std::span<const double> x) {
  history_.emplace_back(x.begin(), x.end());
  if (history_.size() < depth_ + 1) return std::nullopt;
  std::vector<std::vector<double>> last = std::move(history_);
  history_.clear();
  history_.push_back(last.back());
  const std::size_t K = depth_, m = x.size();
  // min ‖Σ c_k u_k‖ over Σ c_k = 1 (u_k = x_{k+1} − x_k) is, with c_K = 1 − Σ_{k<K} c_k, the
  // least-squares problem min ‖u_K + Σ_{k<K} c_k (u_k − u_K)‖, solved by modified Gram–Schmidt.
  // Solving the normal equations (UᵀU)z = 1 instead squares a condition number that is already
  // large (the differences of a slowly converging iteration are nearly parallel) and loses the
  // point; a column that Gram–Schmidt finds dependent on the ones before it gets weight 0.
  std::vector<double> target(m);
  for (std::size_t i = 0; i < m; ++i) target[i] = -(last[K][i] - last[K - 1][i]);
  std::vector<std::vector<double>> q;
  std::vector<std::size_t> kept;
  std::vector<double> r((K - 1) * (K - 1), 0.0);
  for (std::size_t k = 0; k + 1 < K; ++k) {
    std::vector<double> v(m);
    double norm = 0;
    for (std::size_t i = 0; i < m; ++i) {
      v[i] = (last[k + 1][i] - last[k][i]) - (last[K][i] - last[K - 1][i]);
      norm += v[i] * v[i];
    }
    for (std::size_t a = 0; a < q.size(); ++a) {
      double dot = 0;
      for (std::size_t i = 0; i < m; ++i) dot += q[a][i] * v[i];
      r[a * (K - 1) + q.size()] = dot;
      for (std::size_t i = 0; i < m; ++i) v[i] -= dot * q[a][i];
    }
    double left = 0;
    for (const double e : v) left += e * e;
    if (!std::isfinite(left)) return std::nullopt;
    if (!(left > 1e-24 * norm) || left == 0) continue;  // dependent on the columns kept before
    const double length = std::sqrt(left);
    r[q.size() * (K - 1) + q.size()] = length;
    for (double& e : v) e /= length;
    q.push_back(std::move(v));
    kept.push_back(k);
  }
  if (q.empty()) return std::nullopt;
  const std::size_t n = q.size();
  std::vector<double> c(n);
  for (std::size_t a = 0; a < n; ++a) {
    double dot = 0;
    for (std::size_t i = 0; i < m; ++i) dot += q[a][i] * target[i];
    c[a] = dot;
  }
  for (std::size_t a = n; a-- > 0;) {
    for (std::size_t b = a + 1; b < n; ++b) c[a] -= r[a * (K - 1) + b] * c[b];
    c[a] /= r[a * (K - 1) + a];
  }
  std::vector<double> weight(K, 0.0);
  weight[K - 1] = 1;
  for (std::size_t a = 0; a < n; ++a) {
    weight[kept[a]] += c[a];
    weight[K - 1] -= c[a];
  }
  // Σ c_k x_{k+1}: the iterate after each difference, where the combination of differences
  // says the iteration is heading.
  std::vector<double> out(m, 0.0);
  for (std::size_t k = 0; k < K; ++k)
    for (std::size_t i = 0; i < m; ++i) out[i] += weight[k] * last[k + 1][i];
  for (const double e : out)
    if (!std::isfinite(e)) return std::nullopt;
  return out;
}

}  // namespace gyre::lasso
