// apps/common/computation_model.cpp — the names of Harp's computation models.
#include "app/computation_model.hpp"

#include <stdexcept>

namespace gyre::app {

ComputationModel parse_computation_model(const std::string& text) {
  if (text == "A" || text == "locking") return ComputationModel::kLocking;
  if (text == "B" || text == "rotation") return ComputationModel::kRotation;
  if (text == "C" || text == "allreduce") return ComputationModel::kAllreduce;
  if (text == "D" || text == "nosync") return ComputationModel::kNoSync;
  throw std::invalid_argument("computation model '" + text + "': expected A|locking, B|rotation, C|allreduce or D|nosync");
}

const char* name_of(ComputationModel model) {
  switch (model) {
    case ComputationModel::kLocking: return "locking";
    case ComputationModel::kRotation: return "rotation";
    case ComputationModel::kAllreduce: return "allreduce";
    case ComputationModel::kNoSync: return "nosync";
  }
  return "?";
}

}  // namespace gyre::app
