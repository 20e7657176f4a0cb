// gyre/data/planted_ratings.hpp — synthetic low-rank ratings with skewed item popularity.
#pragma once

#include <cstdint>

#include "gyre/data/ratings.hpp"

namespace gyre::data {

struct PlantedRatingsOptions {
  std::uint32_t users = 1000;
  std::uint32_t items = 500;
  std::uint64_t ratings = 50'000;  // train + test, distinct (user, item) pairs
  std::uint32_t rank = 8;
  double noise = 0.1;           // standard deviation of the Gaussian noise added to p_u·q_i
  double test_fraction = 0.1;   // share of the ratings held out as the test set
  double popularity_skew = 1.0;  // Zipf exponent of item popularity (0 = uniform)
  std::uint64_t seed = 1;
};

struct PlantedRatings {
  RatingsSet train;
  RatingsSet test;
};

// rating = p_u · q_i + N(0, noise²) where the entries of p_u and q_i are N(0, rank^-1/2), so the
// noiseless signal has unit variance and the best achievable test RMSE is about `noise`.
// (N(0, v) names the variance here: each factor entry has standard deviation rank^-1/4.)
// Users are drawn uniformly, items from a Zipf law over a random permutation of the ids.
// Deterministic in the options (same seed → same bytes).
PlantedRatings generate_planted_ratings(const PlantedRatingsOptions& options);

}  // namespace gyre::data
