// apps/mf/config.cpp — names of MF's update rules and computation models.
#include "mf/config.hpp"

#include <stdexcept>

namespace gyre::mf {

ComputationModel parse_computation_model(const std::string& text) {
  if (text == "A" || text == "locking") return ComputationModel::kLocking;
  if (text == "B" || text == "rotation") return ComputationModel::kRotation;
  if (text == "C" || text == "allreduce") return ComputationModel::kAllreduce;
  if (text == "D" || text == "nosync") return ComputationModel::kNoSync;
  throw std::invalid_argument("computation model '" + text + "': expected A|locking, B|rotation, C|allreduce or D|nosync");
}

UpdateRule parse_update_rule(const std::string& text) {
  if (text == "adagrad") return UpdateRule::kAdaGrad;
  if (text == "sgd") return UpdateRule::kSgd;
  if (text == "ccd") return UpdateRule::kCcd;
  throw std::invalid_argument("update rule '" + text + "': expected adagrad, sgd or ccd");
}

const char* name_of(UpdateRule rule) {
  switch (rule) {
    case UpdateRule::kAdaGrad: return "adagrad";
    case UpdateRule::kSgd: return "sgd";
    case UpdateRule::kCcd: return "ccd";
  }
  return "?";
}

ChangeCollective parse_change_collective(const std::string& text) {
  if (text == "ring") return ChangeCollective::kRing;
  if (text == "regroup") return ChangeCollective::kRegroup;
  if (text == "pushpull") return ChangeCollective::kPushPull;
  throw std::invalid_argument("collective '" + text + "': expected ring, regroup or pushpull");
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

}  // namespace gyre::mf
