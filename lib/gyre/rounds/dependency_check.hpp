// gyre/rounds/dependency_check.hpp — STRADS's dependency check: keep only candidates nearly uncorrelated with what is already in flight.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "gyre/base/export.hpp"
#include "gyre/rounds/inner_products.hpp"

namespace gyre::scheduler {

// Coordinates updated together (in one round, or in rounds still in flight) each step against a
// residual that misses the others' steps; for correlated columns those steps overshoot. So a
// candidate is dropped when |corr(x̃_j, x̃_k)| ≥ ρ for some coordinate k already kept or in flight.
//
// The inner products x_jᵀx_k come from an InnerProducts source (the workers, each over its own
// rows, so the check needs no row in the scheduler's process), asked once per keep(), in one of
// two ways chosen by the width of the data:
//  - Up to gram_features features: a candidate's correlations with every column (a column of
//    the Gram matrix, Xᵀx_j, centred and scaled) are asked for the first time it is looked at
//    and cached, so a check costs one lookup per coordinate in flight, and once the candidates
//    have been seen, no question at all. On narrow, dense data a candidate shares rows with
//    every column in flight, and walking them each time would cost n·|in flight| per candidate.
//    Past kGramRows samples the inner products are estimated from every (n/kGramRows)-th row
//    (standard error about 1/√kGramRows ≈ 0.02 on a correlation): a Gram column costs Σ over
//    the column's rows of the row length, which on dense data is hundreds of coordinate
//    updates' worth of work, and the check only needs to tell a correlation at ρ from a small one.
//  - Wider: the candidates' products with the coordinates in flight and with each other, over
//    the rows they share. A candidate costs its own non-zeros plus the overlaps, the same order
//    as the workers' work on it, where a Gram column costs Σ over its rows of the row length:
//    50× more on a 50-per-row sparse problem, for pairs mostly never looked at. Two columns that
//    share no row have centred correlation −n·μ_j·μ_k/(‖x̃_j‖‖x̃_k‖), which only dense-ish
//    columns with large means make large; in this mode such pairs are treated as uncorrelated.
class GYRE_API DependencyCheck {
 public:
  static constexpr std::uint32_t kGramFeatures = 4096;  // p² floats: at most 64 MiB of cache

  // `samples` rows in all; correlations are of the columns centred by `mean` (all 0: uncentred)
  // and scaled by `inverse_norm` (1/‖x_j − μ_j‖·√n; 0 for a column never proposed). ρ ≥ 1 turns
  // the check off. `source` must outlive this.
  DependencyCheck(InnerProducts& source, std::uint64_t samples, std::vector<double> mean,
                  std::vector<double> inverse_norm, double rho, std::uint32_t gram_features = kGramFeatures);

  bool enabled() const noexcept { return rho_ < 1; }

  // The candidates to keep, in order: each must not be correlated with an in-flight coordinate
  // nor with a candidate kept before it. Kept ones are marked in `busy` and become in flight.
  std::vector<std::uint32_t> keep(std::span<const std::uint32_t> candidates, std::vector<std::uint8_t>& busy);
  // Coordinate j's round is over (call for every kept coordinate, once).
  void release(std::uint32_t j);

 private:
  bool conflicts_by_gram(std::uint32_t j) const;
  void fetch_gram(std::span<const std::uint32_t> fresh);

  InnerProducts& source_;
  double rho_;
  std::uint64_t samples_;
  std::vector<double> mean_;
  std::vector<double> inverse_norm_;            // 1/‖x_j − μ_j‖·√n, 0 if never proposed
  bool gram_ = false;
  std::vector<std::vector<float>> correlations_;  // Gram mode: per looked-at column
  std::vector<std::uint32_t> in_flight_;
  std::vector<std::uint32_t> slot_;              // position in in_flight_
  std::vector<std::uint8_t> flying_;             // per column: in in_flight_
};

}  // namespace gyre::scheduler
