// apps/mf/mf/sgd_update.hpp — the inner loop of matrix factorisation over one grid cell: plain SGD and AdaGrad.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <span>

#include "mf/worker_ratings.hpp"

namespace gyre::mf {

// A row's tail, from column `width` on (see RowLayout): the bias, then AdaGrad's sums of the
// factors' and of the bias's mean squared gradients, in units where they start at 1.
inline constexpr std::size_t kBiasAt = 0;
inline constexpr std::size_t kFactorSumAt = 1;
inline constexpr std::size_t kBiasSumAt = 2;

struct SgdStep {
  float learning_rate;      // SGD: this epoch's rate; AdaGrad: the factors' rate before the sums
  float lambda;
  float lambda_bias;
  float mean;               // global mean (0 without biases)
  std::size_t width;        // padded rank: the SIMD loops run over all of it (padding stays 0)
  std::size_t stride;       // row pitch of both factor arrays
  bool biases;              // bias at column `width` of each row
  // AdaGrad (the sums scaled so that ratings of any scale s behave as ratings of scale 1 do):
  bool adagrad = false;
  float bias_rate = 0;         // the bias's rate before its sum
  float factor_sum_scale = 0;  // a squared factor gradient's weight in the sum: 1/(rank·s³), or
                               // 1/(updated_width·s³) in a first epoch on fewer columns
  std::size_t updated_width = 0;  // AdaGrad: the first columns updated, a multiple of 8 (0: all)
  float bias_sum_scale = 0;    // a squared bias gradient's weight: 1/s²
};

// The row width is a template parameter for the common ranks (padded widths 8…128) so that
// the dot product and the update unroll completely and the rows stay in registers; other widths
// take the same code with a runtime width (kDynamic).
inline constexpr std::size_t kDynamic = 0;

// Eight floats as one vector (GCC's and clang's vector extension; two SSE registers where AVX
// is missing). Rows are padded to a multiple of 8 floats, so a row is a whole number of them.
// Vectors go in and out of functions only by reference: by value their ABI differs with and
// without AVX, which -Wpsabi reports.
using Lane8 = float __attribute__((vector_size(32)));
using Floats8 = float __attribute__((vector_size(32), aligned(4), may_alias));  // eight floats of a row, in place
inline const Floats8& at8(const float* at) { return *reinterpret_cast<const Floats8*>(at); }
inline Floats8& at8(float* at) { return *reinterpret_cast<Floats8*>(at); }
inline float sum8(const Lane8& v) { return ((v[0] + v[4]) + (v[1] + v[5])) + ((v[2] + v[6]) + (v[3] + v[7])); }

// p·q over `width` floats in four independent sums: one chain of width/8 fused multiply-adds
// waited on each one's latency (13 in a row at k = 100). A fixed order: the same bits every run.
template <std::size_t W>
inline float dot(const float* p, const float* q, std::size_t width) {
  const std::size_t n = W == kDynamic ? width : W;
  Lane8 a0{}, a1{}, a2{}, a3{};
  std::size_t j = 0;
  for (; j + 32 <= n; j += 32) {
    a0 += at8(p + j) * at8(q + j);
    a1 += at8(p + j + 8) * at8(q + j + 8);
    a2 += at8(p + j + 16) * at8(q + j + 16);
    a3 += at8(p + j + 24) * at8(q + j + 24);
  }
  if (j + 16 <= n) {
    a0 += at8(p + j) * at8(q + j);
    a1 += at8(p + j + 8) * at8(q + j + 8);
    j += 16;
  }
  if (j < n) a2 += at8(p + j) * at8(q + j);
  return sum8((a0 + a1) + (a2 + a3));
}

template <std::size_t W>
inline float predict(const float* p, const float* q, const SgdStep& s) {
  float pred = dot<W>(p, q, s.width);
  if (s.biases) pred += s.mean + p[s.width + kBiasAt] + q[s.width + kBiasAt];
  return pred;
}

// The *_cell_w kernels take a cell's ratings and its sub-block's rows (`items` from the
// sub-block's first row); sgd_cell finds them for a Cell.

// One SGD pass over `cell`: for each rating, e = r − p·q (− biases); p += lr(e q − λp);
// q += lr(e p − λq), both from the old values. Returns the sum of squared errors seen
// (before each update), which is LIBMF's training loss.
template <std::size_t W>
inline double sgd_cell_w(std::span<const CellRating> cell, float* __restrict users, float* __restrict items,
                         const SgdStep& s) {
  double loss = 0;
  const float lr = s.learning_rate;
  const float decay = 1.0f - lr * s.lambda;
  const std::size_t width = W == kDynamic ? s.width : W;
  for (const CellRating& r : cell) {
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

// The same pass with AdaGrad's per-row rates: g_p = λp − e q, p −= rate/√G_p · g_p, and G_p
// grows by g_p's mean square (likewise q and the biases), all from the old values. The ratings
// of a cell come sorted by user, and a user's rate is taken once per run of its ratings, its
// squares added when the run ends: the square root and division stay off the chain from one
// rating of a user to the next. After the prediction, one pass over the row, eight floats at a
// time, makes both gradients, their squares and both steps: Eigen's whole-row expressions held
// p, q and both gradients at once, 52 vectors at k = 100, and spilled them to the stack. The
// squares are summed in a fixed order: the same bits on every run.
template <std::size_t W>
inline double adagrad_cell_w(std::span<const CellRating> cell, float* __restrict users, float* __restrict items,
                             const SgdStep& s) {
  const std::size_t width = W == kDynamic ? s.width : W;
  const std::size_t updated = s.updated_width != 0 ? s.updated_width : width;
  double loss = 0;
  const float lambda = s.lambda;
  std::size_t i = 0;
  while (i < cell.size()) {
    const std::uint32_t user = cell[i].user;
    float* __restrict p = users + static_cast<std::size_t>(user) * s.stride;
    float* p_tail = p + s.width;
    const float rate_p = s.learning_rate / std::sqrt(p_tail[kFactorSumAt]);
    const float bias_rate_p = s.biases ? s.bias_rate / std::sqrt(p_tail[kBiasSumAt]) : 0.0f;
    Lane8 square_p{};
    float bias_square_p = 0;
    for (; i < cell.size() && cell[i].user == user; ++i) {
      float* __restrict q = items + static_cast<std::size_t>(cell[i].row) * s.stride;
      float* q_tail = q + s.width;
      const float e = cell[i].value - predict<W>(p, q, s);
      loss += static_cast<double>(e) * e;
      const float rate_q = s.learning_rate / std::sqrt(q_tail[kFactorSumAt]);
      Lane8 square_q{};
      for (std::size_t j = 0; j < updated; j += 8) {
        const Lane8 pj = at8(p + j), qj = at8(q + j);
        const Lane8 gp = lambda * pj - e * qj;
        const Lane8 gq = lambda * qj - e * pj;
        square_p += gp * gp;
        square_q += gq * gq;
        at8(p + j) = pj - rate_p * gp;
        at8(q + j) = qj - rate_q * gq;
      }
      q_tail[kFactorSumAt] += sum8(square_q) * s.factor_sum_scale;
      if (s.biases) {
        const float bp = s.lambda_bias * p_tail[kBiasAt] - e;
        const float bq = s.lambda_bias * q_tail[kBiasAt] - e;
        p_tail[kBiasAt] -= bias_rate_p * bp;
        q_tail[kBiasAt] -= s.bias_rate / std::sqrt(q_tail[kBiasSumAt]) * bq;
        bias_square_p += bp * bp;
        q_tail[kBiasSumAt] += bq * bq * s.bias_sum_scale;
      }
    }
    p_tail[kFactorSumAt] += sum8(square_p) * s.factor_sum_scale;
    if (s.biases) p_tail[kBiasSumAt] += bias_square_p * s.bias_sum_scale;
  }
  return loss;
}

template <std::size_t W>
inline double update_cell_w(std::span<const CellRating> cell, float* users, float* items, const SgdStep& s) {
  return s.adagrad ? adagrad_cell_w<W>(cell, users, items, s) : sgd_cell_w<W>(cell, users, items, s);
}

// `block_items`: the visiting block's rows, from its first.
inline double sgd_cell(const Cell& c, float* users, float* block_items, const SgdStep& s) {
  const std::span<const CellRating> cell = c.ratings;
  float* items = block_items + static_cast<std::size_t>(c.first_row) * s.stride;
  switch (s.width) {
    case 8: return update_cell_w<8>(cell, users, items, s);
    case 16: return update_cell_w<16>(cell, users, items, s);
    case 24: return update_cell_w<24>(cell, users, items, s);
    case 32: return update_cell_w<32>(cell, users, items, s);
    case 40: return update_cell_w<40>(cell, users, items, s);
    case 48: return update_cell_w<48>(cell, users, items, s);
    case 64: return update_cell_w<64>(cell, users, items, s);
    case 80: return update_cell_w<80>(cell, users, items, s);
    case 96: return update_cell_w<96>(cell, users, items, s);
    case 104: return update_cell_w<104>(cell, users, items, s);
    case 128: return update_cell_w<128>(cell, users, items, s);
    default: return update_cell_w<kDynamic>(cell, users, items, s);
  }
}

// Sum of squared errors over `c`'s ratings without updating anything; `block_items` as sgd_cell's.
inline double squared_error(const Cell& c, const float* users, const float* block_items, const SgdStep& s) {
  const float* items = block_items + static_cast<std::size_t>(c.first_row) * s.stride;
  double sum = 0;
  for (const CellRating& r : c.ratings) {
    const float e = r.value - predict<kDynamic>(users + static_cast<std::size_t>(r.user) * s.stride,
                                                items + static_cast<std::size_t>(r.row) * s.stride, s);
    sum += static_cast<double>(e) * e;
  }
  return sum;
}

}  // namespace gyre::mf
