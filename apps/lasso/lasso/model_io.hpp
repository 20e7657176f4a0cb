// apps/lasso/lasso/model_io.hpp — the fitted coefficients as a file people and scripts read.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "gyre/data/id_space.hpp"
#include "lasso/round_scheduler.hpp"

namespace gyre::lasso {

// Tab-separated, one header line "lambda<TAB>feature<TAB>name<TAB>coefficient", then per λ of
// the path (in order) the intercept as feature 0 named "(intercept)" and every non-zero
// coefficient, feature indices 1-based as in LibSVM, names from `feature_names` (else
// "x<index>"), numbers in shortest round-trip form. Written atomically. Coefficient j of the
// run is column `columns.original[j]` of the input (data::compact_features); an empty table
// means column j itself.
void write_coefficients(const std::filesystem::path& file, const LassoRun& run,
                        const std::vector<std::string>& feature_names, const data::IdTable& columns = {});

}  // namespace gyre::lasso
