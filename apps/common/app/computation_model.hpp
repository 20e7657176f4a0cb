// apps/common/app/computation_model.hpp — Harp's four computation models, as MF and LDA name them on the command line and in model.json.
#pragma once

#include <string>

namespace gyre::app {

// How workers share the model blocks (each app says what that means for its model: mf/config.hpp,
// lda/config.hpp): A locking, B rotation, C allreduce, D no-sync.
enum class ComputationModel { kLocking, kRotation, kAllreduce, kNoSync };

// "A"/"locking", "B"/"rotation", "C"/"allreduce", "D"/"nosync"; throws std::invalid_argument
// naming what is expected.
ComputationModel parse_computation_model(const std::string& text);
// "locking", "rotation", "allreduce", "nosync": the one spelling ranks and model files use.
const char* name_of(ComputationModel model);

}  // namespace gyre::app
