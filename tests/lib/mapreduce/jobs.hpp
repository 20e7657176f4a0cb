// tests/lib/mapreduce/jobs.hpp — a map-reduce job of n workers on a test backend, and the text a call fails with.
#pragma once

#include <exception>
#include <functional>
#include <string>

#include "gyre/runtime/job.hpp"

namespace gyre_test {

template <class B>
gyre::runtime::Job job_of(int workers) {
  gyre::runtime::Job job;
  job.workers = workers;
  job.backend = B::runtime_backend();
  return job;
}

// what() of the exception `call` throws, or "(no error)".
inline std::string error_of(const std::function<void()>& call) {
  try {
    call();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace gyre_test
