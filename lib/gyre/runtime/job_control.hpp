// gyre/runtime/job_control.hpp — what reaches a running job from outside it: a cancel, and whether it is stopping.
#pragma once

#include <chrono>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <optional>
#include <vector>

#include "gyre/base/export.hpp"
#include "gyre/net/group.hpp"

namespace gyre::runtime {

// Shared by a job's run() (Job::control) and whoever may stop it: a JobHandle, or a service's
// own thread. Every engine runs through run(), so every engine is cancelled the same way: the
// links of the members this process runs are closed, which ends every wait on a mailbox, and
// the engines look at cancelled() (through Mailbox::cancelled) before each visit or step, so a
// kernel stops at its next boundary rather than after the visits already queued.
class GYRE_API JobControl {
 public:
  static constexpr const char* kCancelledText = "the job was cancelled";

  // Idempotent; a job that has already ended keeps its outcome.
  void cancel();
  bool cancelled() const;

  // --- run()'s side ---
  // A member's links: closed at once if the job is already cancelled, or when it is.
  void attach(net::Group& group);
  // Before the groups die: cancel() must not reach them after.
  void detach_all();
  // A member has failed with `error`: the job is stopping. The first one is kept, for a handle
  // that stops waiting for members that do not end (a kernel hung past its deadline).
  void note_failure(std::exception_ptr error);
  // The job has ended with `error` (null: it succeeded).
  void finish(std::exception_ptr error);

  // --- a waiter's side ---
  enum class Outcome { kRunning, kEnded, kAbandoned };
  // Waits until the job has ended, or until `grace` has passed since it began to stop (a cancel
  // or a member's failure) with some member still running, or until `deadline`.
  Outcome wait(std::chrono::steady_clock::time_point deadline, std::chrono::milliseconds grace);
  // What the job ended with; or, abandoned, what stopped it (cancelled, or the first failure).
  std::exception_ptr outcome() const;
  // Until the job's threads have all returned, abandoned or not (within `deadline`).
  bool wait_ended(std::chrono::steady_clock::time_point deadline);

 private:
  mutable std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<net::Group*> groups_;
  bool cancelled_ = false;
  bool ended_ = false;
  std::optional<std::chrono::steady_clock::time_point> stopping_since_;
  std::exception_ptr first_failure_;
  std::exception_ptr error_;
};

}  // namespace gyre::runtime
