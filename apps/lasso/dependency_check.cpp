// apps/lasso/dependency_check.cpp — lazily cached lists of strongly correlated column pairs and the keep/drop pass.
#include "lasso/dependency_check.hpp"

#include <oneapi/tbb/enumerable_thread_specific.h>
#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/task_arena.h>

#include <cmath>

namespace gyre::lasso {

DependencyCheck::DependencyCheck(const data::RegressionSet& rows, const data::ColumnMatrix& columns,
                                 const ColumnStats& stats, double rho, int threads)
    : rows_(rows), columns_(columns), stats_(stats), rho_(rho), threads_(std::max(1, threads)) {
  if (enabled()) {
    partners_of_.resize(columns.features());
    computed_.assign(columns.features(), 0);
  }
}

DependencyCheck::~DependencyCheck() = default;

void DependencyCheck::compute(std::span<const std::uint32_t> wanted) {
  const std::uint32_t m = columns_.features();
  const double n = static_cast<double>(stats_.samples);
  struct Scratch {
    std::vector<double> dot;
    std::vector<std::uint32_t> touched;
  };
  tbb::enumerable_thread_specific<Scratch> scratch([m] { return Scratch{std::vector<double>(m, 0.0), {}}; });
  auto one = [&](std::uint32_t j) {
    Scratch& s = scratch.local();
    for (std::uint64_t e = columns_.col_begin[j]; e < columns_.col_begin[j + 1]; ++e) {
      const std::uint64_t i = columns_.rows[e];
      const double xij = columns_.values[e];
      for (std::uint64_t f = rows_.row_begin[i]; f < rows_.row_begin[i + 1]; ++f) {
        const std::uint32_t k = rows_.cols[f];
        if (s.dot[k] == 0) s.touched.push_back(k);
        s.dot[k] += xij * rows_.values[f];
      }
    }
    std::vector<std::uint32_t>& out = partners_of_[j];
    const double norm_j = std::sqrt(stats_.curvature[j]) * stats_.scale[j];  // ‖x_j − μ_j‖/√n
    for (std::uint32_t k : s.touched) {
      if (k != j && stats_.usable[k]) {
        const double centred = s.dot[k] / n - stats_.mean[j] * stats_.mean[k];
        const double corr = centred / (norm_j * std::sqrt(stats_.curvature[k]) * stats_.scale[k]);
        if (std::abs(corr) >= rho_) out.push_back(k);
      }
      s.dot[k] = 0;
    }
    s.touched.clear();
  };
  if (wanted.size() == 1) {
    one(wanted[0]);
  } else {
    tbb::task_arena arena(threads_);
    arena.execute([&] {
      tbb::parallel_for(std::size_t{0}, wanted.size(), [&](std::size_t c) { one(wanted[c]); });
    });
  }
  for (std::uint32_t j : wanted) {
    computed_[j] = 1;
    ++cached_;
    partners_ += partners_of_[j].size();
  }
}

std::vector<std::uint32_t> DependencyCheck::keep(std::span<const std::uint32_t> candidates,
                                                 std::vector<std::uint8_t>& busy) {
  std::vector<std::uint32_t> kept;
  kept.reserve(candidates.size());
  if (!enabled()) {
    for (std::uint32_t j : candidates) {
      busy[j] = 1;
      kept.push_back(j);
    }
    return kept;
  }
  std::vector<std::uint32_t> missing;
  for (std::uint32_t j : candidates)
    if (!computed_[j]) missing.push_back(j);
  if (!missing.empty()) compute(missing);
  for (std::uint32_t j : candidates) {
    bool free = true;
    for (std::uint32_t k : partners_of_[j])
      if (busy[k]) {
        free = false;
        break;
      }
    if (!free) continue;
    busy[j] = 1;
    kept.push_back(j);
  }
  return kept;
}

}  // namespace gyre::lasso
