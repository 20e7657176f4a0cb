// apps/mf/mf/model_use.hpp — using a trained model: scores of given pairs (predict) and each user's best items (recommend).
#pragma once

#include <cstdint>
#include <ostream>
#include <vector>

#include "mf/queries.hpp"
#include "mf/scorer.hpp"

namespace gyre::mf {

struct PredictSummary {
  std::uint64_t pairs = 0;
  std::uint64_t rated = 0;  // pairs whose line had a rating
  double rmse = 0;          // over those, 0 if none
};

// Writes "user<TAB>item<TAB>score" for every pair, in file order, ids as in the model. Runs on
// the calling task arena's threads; the output is the same for any thread count.
PredictSummary predict(const Scorer& scorer, const Pairs& pairs, std::ostream& out);

// Writes, for each of `users` in order, its `top` best items as "user<TAB>item<TAB>score<TAB>rank"
// lines, rank 1 first: highest score first, equal scores by ascending item id, leaving out the
// items `exclude` (may be null) lists for that user; fewer lines when fewer items remain. Scores
// are computed as a matrix product over blocks of users, so they may differ from predict's in
// the last bit of the dot product.
void recommend(const Scorer& scorer, const std::vector<std::uint32_t>& users, std::uint32_t top,
               const RatedItems* exclude, std::ostream& out);

}  // namespace gyre::mf
