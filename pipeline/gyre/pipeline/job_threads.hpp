// gyre/pipeline/job_threads.hpp — the threads a job's parts run on in one process, and what a failing part does.
#pragma once

#include <functional>
#include <memory>
#include <vector>

#include "gyre/net/group.hpp"

namespace gyre::pipeline {

// Runs part(rank) for every rank of `groups`, each on a thread of its own. A part that throws
// closes its rank's group, so that parts waiting on it stop too (inproc: the whole job closes;
// tcp: its peers see it fail). Once every part has ended, the first exception is rethrown.
void run_parts(std::vector<std::unique_ptr<net::Group>>& groups, const std::function<void(int rank)>& part);

// A process's share of a multi-process job: `main` (its worker) on this thread and, if given,
// `beside` (what process 0 hosts next to it: the scheduler, a server) on another. Neither
// closes anything on failure: the failing side has already told the job. After both end,
// `beside`'s exception is rethrown first (it speaks for the whole job), else `main`'s.
void run_beside(const std::function<void()>& main, const std::function<void()>& beside);

}  // namespace gyre::pipeline
