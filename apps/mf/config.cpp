// apps/mf/config.cpp — names of MF's update rules and change collectives.
#include "mf/config.hpp"

#include <stdexcept>

namespace gyre::mf {

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

}  // namespace gyre::mf
