// gyre/mapreduce/job.hpp — runs a map-reduce program on every worker of a runtime job, and fails it everywhere when one rank fails.
#pragma once

#include <functional>

#include "gyre/base/export.hpp"
#include "gyre/mapreduce/context.hpp"
#include "gyre/runtime/job.hpp"

namespace gyre::mapreduce {

// Runs program(context) on every worker of `job` (which has workers and no roles), each with
// a Context over the job's workers: threads of this process, loopback tcp, or one process per
// rank, with the same program. When a rank's program throws, the other ranks are told
// (runtime::fail_job) and their verbs throw runtime::JobFailed naming it; a malformed message
// (BadMessage) is blamed on its sender, with cause kBadMessage; refused input (InputError,
// std::invalid_argument) has cause kBadInput, any other exception kError. Then run() throws as
// runtime::run does: in one process the first rank's own exception.
GYRE_API void run(const runtime::Job& job, const std::function<void(Context&)>& program, const Options& options = {});

}  // namespace gyre::mapreduce
