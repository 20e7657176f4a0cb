// tests/support/job_failure.hpp — runs one part of a job and says how it failed, for tests that check every part's error.
#pragma once

#include <functional>
#include <string>

#include "gyre/runtime/failure.hpp"

namespace gyre::test {

// The text of the runtime::JobFailed that `part` ended with, or a sentence saying it did not
// fail (which no expected error text contains). Anything else it throws escapes to the test.
inline std::string job_failure(const std::function<void()>& part) {
  try {
    part();
  } catch (const runtime::JobFailed& e) {
    return e.what();
  }
  return "the part ended without a failure";
}

}  // namespace gyre::test
