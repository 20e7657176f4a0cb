// gyre/scheduler/dependency_check.hpp — STRADS's dependency check: keep only candidates nearly uncorrelated with what is already in flight.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "gyre/base/export.hpp"

namespace gyre::scheduler {

// Coordinates updated together (in one round, or in rounds still in flight) each step against a
// residual that misses the others' steps; for correlated columns those steps overshoot. So a
// candidate is dropped when |corr(x̃_j, x̃_k)| ≥ ρ for some coordinate k already kept or in flight.
//
// Two ways to get the inner products x_jᵀx_k, chosen by the width of the data:
//  - Up to kGramFeatures features: a candidate's correlations with every column (a column of
//    the Gram matrix, Xᵀx_j, centred and scaled) are computed the first time it is looked at and
//    cached, so a check costs one lookup per coordinate in flight. On narrow, dense data a
//    candidate shares rows with every column in flight, and walking them each time would
//    cost n·|in flight| per candidate. Past kGramRows samples the inner products are estimated
//    from every (n/kGramRows)-th row (standard error about 1/√kGramRows ≈ 0.02 on a
//    correlation): a Gram column costs Σ over the column's rows of the row length, which on
//    dense data is hundreds of coordinate updates' worth of work, and the check only needs to
//    tell a correlation at ρ from a small one.
//  - Wider: computed when the pair is looked at, over the rows the two columns share: the
//    coordinates in flight are entered in a row index (row → their non-zeros there), and a
//    candidate walks its own non-zeros through it. A candidate costs its own non-zeros plus the
//    overlaps, the same order as the workers' work on it, where a Gram column costs Σ over its
//    rows of the row length: 50× more on a 50-per-row sparse problem, for pairs mostly never
//    looked at. Two columns that share no row have centred correlation
//    −n·μ_j·μ_k/(‖x̃_j‖‖x̃_k‖), which only dense-ish columns with large means make large; in
//    this mode such pairs are treated as uncorrelated.
// A sparse matrix one way round, CSR by rows or CSC by columns: line k holds index[e] and
// values[e] for e in [begin[k], begin[k + 1]), indices increasing.
struct SparseLines {
  std::span<const std::uint64_t> begin;
  std::span<const std::uint32_t> index;
  std::span<const double> values;
  std::uint64_t lines() const noexcept { return begin.empty() ? 0 : begin.size() - 1; }
};

class GYRE_API DependencyCheck {
 public:
  static constexpr std::uint32_t kGramFeatures = 4096;  // p² floats: at most 64 MiB of cache
  static constexpr std::uint64_t kGramRows = 2048;

  // `rows` and `columns` are the whole data set by row and by column; what they view must
  // outlive this.
  // Correlations are of the columns centred by `mean` (all 0: uncentred) and scaled by
  // `inverse_norm` (1/‖x_j − μ_j‖·√n; 0 for a column never proposed). ρ ≥ 1 turns the check off.
  DependencyCheck(SparseLines rows, SparseLines columns, std::vector<double> mean, std::vector<double> inverse_norm,
                  double rho);

  bool enabled() const noexcept { return rho_ < 1; }

  // The candidates to keep, in order: each must not be correlated with an in-flight coordinate
  // nor with a candidate kept before it. Kept ones are marked in `busy` and become in flight.
  std::vector<std::uint32_t> keep(std::span<const std::uint32_t> candidates, std::vector<std::uint8_t>& busy);
  // Coordinate j's round is over (call for every kept coordinate, once).
  void release(std::uint32_t j);

 private:
  struct Entry {
    std::uint32_t column;
    double value;
  };
  bool conflicts(std::uint32_t j);
  bool conflicts_by_gram(std::uint32_t j);
  const std::vector<float>& gram_column(std::uint32_t j);

  SparseLines rows_;
  SparseLines columns_;
  double rho_;
  std::uint64_t samples_;
  std::vector<double> mean_;
  std::vector<double> inverse_norm_;            // 1/‖x_j − μ_j‖·√n, 0 if never proposed
  void walk_row(std::uint64_t row, double x);

  // The row index: per row, how many in-flight columns are non-zero there, the first of them
  // inline and the rest aside. On sparse data most rows hold none or one, so a candidate's walk
  // stays in two flat arrays instead of chasing a heap block per row.
  std::vector<std::uint32_t> occupants_;
  std::vector<Entry> first_;
  std::vector<std::vector<Entry>> more_;
  std::vector<double> dot_;                     // scratch, all zero between calls
  std::vector<std::uint32_t> touched_;
  // Gram mode: cached centred correlations per looked-at column, and the coordinates in flight.
  bool gram_ = false;
  std::vector<std::vector<float>> correlations_;
  std::vector<std::uint32_t> in_flight_;
  std::vector<std::uint32_t> slot_;              // position in in_flight_
};

}  // namespace gyre::scheduler
