// apps/lda/lda/log_gamma.hpp — lgamma(n + offset) for counts n, tabulated for the small counts that dominate.
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

namespace gyre::lda {

// The log-likelihood sums lgamma over every non-zero count each epoch; almost all counts are
// small, so a table answers them. Larger counts use lgamma_r, which unlike std::lgamma does
// not write the global signgam (several threads evaluate at once).
class LogGamma {
 public:
  LogGamma(double offset, std::size_t table_size = 1 << 16) : offset_(offset), table_(table_size) {
    for (std::size_t n = 0; n < table_size; ++n) table_[n] = exact(static_cast<double>(n) + offset);
  }
  double operator()(std::int64_t n) const noexcept {
    return static_cast<std::uint64_t>(n) < table_.size() ? table_[static_cast<std::size_t>(n)]
                                                          : exact(static_cast<double>(n) + offset_);
  }
  double offset() const noexcept { return offset_; }

  static double exact(double x) noexcept {
    int sign = 0;
    return lgamma_r(x, &sign);
  }

 private:
  double offset_;
  std::vector<double> table_;
};

}  // namespace gyre::lda
