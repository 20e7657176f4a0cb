// apps/lasso/config.cpp — schedule names.
#include "lasso/config.hpp"

#include <stdexcept>

namespace gyre::lasso {

ScheduleKind parse_schedule(const std::string& name) {
  if (name == "cyclic") return ScheduleKind::cyclic;
  if (name == "random") return ScheduleKind::random;
  if (name == "priority") return ScheduleKind::priority;
  throw std::invalid_argument("unknown schedule '" + name + "' (cyclic, random or priority)");
}

const char* schedule_name(ScheduleKind kind) noexcept {
  switch (kind) {
    case ScheduleKind::cyclic: return "cyclic";
    case ScheduleKind::random: return "random";
    case ScheduleKind::priority: return "priority";
  }
  return "?";
}

}  // namespace gyre::lasso
