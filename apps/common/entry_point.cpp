// apps/common/entry_point.cpp — a relayed refusal of the input is bad input.
#include "app/entry_point.hpp"

#include <stdexcept>

#include "gyre/base/entry_point.hpp"
#include "gyre/runtime/failure.hpp"

namespace gyre::app {

int run_entry_point(const char* program, const std::function<int()>& body) {
  return gyre::run_entry_point(program, [&] {
    try {
      return body();
    } catch (const runtime::JobFailed& e) {
      if (e.cause() != runtime::FailureCause::kBadInput) throw;
      throw std::invalid_argument(e.what());
    }
  });
}

}  // namespace gyre::app
