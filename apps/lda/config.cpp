// apps/lda/config.cpp — names of LDA's computation models.
#include "lda/config.hpp"

#include <stdexcept>

namespace gyre::lda {

ComputationModel parse_computation_model(const std::string& text) {
  if (text == "B" || text == "rotation") return ComputationModel::kRotation;
  if (text == "C" || text == "allreduce") return ComputationModel::kAllreduce;
  throw std::invalid_argument("computation model '" + text + "': expected B|rotation or C|allreduce");
}

const char* name_of(ComputationModel model) {
  return model == ComputationModel::kAllreduce ? "allreduce" : "rotation";
}

}  // namespace gyre::lda
