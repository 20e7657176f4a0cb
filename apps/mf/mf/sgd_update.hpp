// apps/mf/mf/sgd_update.hpp — the inner loop of SGD matrix factorisation over one grid cell.
#pragma once

#include <Eigen/Core>

#include <cstddef>
#include <span>

#include "mf/worker_ratings.hpp"

namespace gyre::mf {

struct SgdStep {
  float learning_rate;
  float lambda;
  float lambda_bias;
  float mean;               // global mean (0 without biases)
  std::size_t width;        // padded rank: the SIMD loops run over all of it (padding stays 0)
  std::size_t stride;       // row pitch of both factor arrays
  bool biases;              // bias at column `width` of each row
};

// The row width is a template parameter for the common ranks (padded widths 8…128) so that
// the dot product and the update unroll completely and the rows stay in registers; other widths
// take the same code with a runtime width (kDynamic).
inline constexpr std::size_t kDynamic = 0;

template <std::size_t W>
inline float predict(const float* p, const float* q, const SgdStep& s) {
  float pred;
  if constexpr (W == kDynamic) {
    using Row = Eigen::Map<const Eigen::VectorXf, Eigen::Aligned32>;
    pred = Row(p, static_cast<Eigen::Index>(s.width)).dot(Row(q, static_cast<Eigen::Index>(s.width)));
  } else {
    using Row = Eigen::Map<const Eigen::Matrix<float, static_cast<int>(W), 1>, Eigen::Aligned32>;
    pred = Row(p).dot(Row(q));
  }
  if (s.biases) pred += s.mean + p[s.width] + q[s.width];
  return pred;
}

// One SGD pass over `cell`: for each rating, e = r − p·q (− biases); p += lr(e q − λp);
// q += lr(e p − λq), both from the old values. Returns the sum of squared errors seen
// (before each update), which is LIBMF's training loss.
template <std::size_t W>
inline double sgd_cell_w(std::span<const LocalRating> cell, float* __restrict users, float* __restrict items,
                         const SgdStep& s) {
  double loss = 0;
  const float lr = s.learning_rate;
  const float decay = 1.0f - lr * s.lambda;
  const std::size_t width = W == kDynamic ? s.width : W;
  for (const LocalRating& r : cell) {
    float* __restrict p = users + static_cast<std::size_t>(r.user) * s.stride;
    float* __restrict q = items + static_cast<std::size_t>(r.row) * s.stride;
    const float e = r.value - predict<W>(p, q, s);
    loss += static_cast<double>(e) * e;
    const float g = lr * e;
    for (std::size_t j = 0; j < width; ++j) {  // vectorised: no reduction, no aliasing
      const float pj = p[j];
      const float qj = q[j];
      p[j] = decay * pj + g * qj;
      q[j] = decay * qj + g * pj;
    }
    if (s.biases) {
      p[s.width] += lr * (e - s.lambda_bias * p[s.width]);
      q[s.width] += lr * (e - s.lambda_bias * q[s.width]);
    }
  }
  return loss;
}

inline double sgd_cell(std::span<const LocalRating> cell, float* users, float* items, const SgdStep& s) {
  switch (s.width) {
    case 8: return sgd_cell_w<8>(cell, users, items, s);
    case 16: return sgd_cell_w<16>(cell, users, items, s);
    case 24: return sgd_cell_w<24>(cell, users, items, s);
    case 32: return sgd_cell_w<32>(cell, users, items, s);
    case 40: return sgd_cell_w<40>(cell, users, items, s);
    case 48: return sgd_cell_w<48>(cell, users, items, s);
    case 64: return sgd_cell_w<64>(cell, users, items, s);
    case 80: return sgd_cell_w<80>(cell, users, items, s);
    case 96: return sgd_cell_w<96>(cell, users, items, s);
    case 104: return sgd_cell_w<104>(cell, users, items, s);
    case 128: return sgd_cell_w<128>(cell, users, items, s);
    default: return sgd_cell_w<kDynamic>(cell, users, items, s);
  }
}

// Sum of squared errors over `ratings` without updating anything.
inline double squared_error(std::span<const LocalRating> ratings, const float* users, const float* items,
                            const SgdStep& s) {
  double sum = 0;
  for (const LocalRating& r : ratings) {
    const float e = r.value - predict<kDynamic>(users + static_cast<std::size_t>(r.user) * s.stride,
                                                items + static_cast<std::size_t>(r.row) * s.stride, s);
    sum += static_cast<double>(e) * e;
  }
  return sum;
}

}  // namespace gyre::mf
