// apps/lda/config.cpp — names of LDA's computation models.
#include "lda/config.hpp"

#include <stdexcept>

namespace gyre::lda {

ComputationModel parse_computation_model(const std::string& text) {
  if (text == "A" || text == "locking") return ComputationModel::kLocking;
  if (text == "B" || text == "rotation") return ComputationModel::kRotation;
  if (text == "C" || text == "allreduce") return ComputationModel::kAllreduce;
  throw std::invalid_argument("computation model '" + text + "': expected A|locking, B|rotation or C|allreduce");
}

const char* name_of(ComputationModel model) {
  switch (model) {
    case ComputationModel::kLocking: return "locking";
    case ComputationModel::kRotation: return "rotation";
    case ComputationModel::kAllreduce: return "allreduce";
  }
  return "?";
}

}  // namespace gyre::lda
