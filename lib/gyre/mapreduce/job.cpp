// gyre/mapreduce/job.cpp — a map-reduce program on the runtime: one Context per worker, a failure told to every rank.
#include "gyre/mapreduce/mapreduce.hpp"

#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

#include "gyre/base/input_error.hpp"
#include "gyre/runtime/failure.hpp"

namespace gyre::mapreduce {

void run(const runtime::Job& job, const std::function<void(Context&)>& program, const Options& options) {
  job.validate();
  if (!job.roles.empty()) throw std::invalid_argument("a map-reduce job has workers only, no roles");
  runtime::run(job, [&](const runtime::Member& m) {
    std::vector<int> others;
    for (int r = 0; r < job.workers; ++r)
      if (r != m.rank) others.push_back(r);
    try {
      Context context(m.mailbox, job.workers, options);
      program(context);
    } catch (const BadMessage& e) {
      runtime::fail_job(m.group, others,
                        runtime::JobFailed(e.sender(), runtime::FailureCause::kBadMessage,
                                           "rank " + std::to_string(m.rank) + ": " + e.what(), std::current_exception()));
    } catch (const std::exception& e) {
      if (runtime::is_job_failure(e)) throw;  // heard from another rank, which has told everyone
      // Bad input is told as such, so that every rank (not only the one that read it) can
      // answer as for bad input; a fault of the whole file is found by every rank, and which
      // one's notice arrives first is a race.
      const bool refused = dynamic_cast<const InputError*>(&e) != nullptr ||
                           dynamic_cast<const std::invalid_argument*>(&e) != nullptr;
      runtime::fail_job(m.group, others,
                        runtime::JobFailed(m.rank, refused ? runtime::FailureCause::kBadInput : runtime::FailureCause::kError,
                                           "rank " + std::to_string(m.rank) + ": " + e.what(), std::current_exception()));
    }
  });
}

}  // namespace gyre::mapreduce
