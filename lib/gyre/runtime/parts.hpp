// gyre/runtime/parts.hpp — the threads a job's parts run on, what a failing part does, which error the caller sees.
#pragma once

#include <exception>
#include <functional>
#include <memory>
#include <vector>

#include "gyre/net/group.hpp"

namespace gyre::runtime {

// Runs part(rank) for every rank of `groups`, each on a thread of its own. A part that throws
// closes its rank's group, so that parts waiting on it stop too (inproc: the whole job closes;
// tcp: its peers see it fail). Once every part has ended, the root cause is rethrown (see
// RootCause): the original exception of the part that failed first, of the caller's own type
// if a kernel threw one, not the JobFailed echoes the other parts raised on hearing of it.
void run_parts(std::vector<std::unique_ptr<net::Group>>& groups, const std::function<void(int rank)>& part);

// A process's share of a multi-process job: `main` (its worker) on this thread and `beside`
// (what the process hosts next to it: the scheduler, servers) on threads of their own. None
// closes anything on failure: the failing side has already told the job. After all end, the
// root cause is rethrown; between two of one rank, a `beside`'s (it speaks for the whole job).
void run_beside(const std::function<void()>& main, const std::vector<std::function<void()>>& beside);
// The same with at most one part beside (none if `beside` is empty).
void run_beside(const std::function<void()>& main, const std::function<void()>& beside);

// Keeps the error that explains a failed job. A part that fails throws its own error; the
// others then throw JobFailed (told of it) or net::GroupClosed (their group was closed under
// them). The first error of the best of those three ranks wins.
class RootCause {
 public:
  void offer(std::exception_ptr error);  // not thread-safe: callers hold their own lock
  explicit operator bool() const noexcept { return static_cast<bool>(error_); }
  [[noreturn]] void rethrow() const { std::rethrow_exception(error_); }

 private:
  std::exception_ptr error_;
  int rank_ = 0;  // of error_: 3 the part's own error, 2 JobFailed, 1 GroupClosed
};

}  // namespace gyre::runtime
