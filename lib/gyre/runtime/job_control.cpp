// gyre/runtime/job_control.cpp — cancel by closing links; stopping noted; a waiter's grace.
#include "gyre/runtime/job.hpp"

#include <string>

#include "gyre/runtime/failure.hpp"

namespace gyre::runtime {

void JobControl::cancel() {
  std::lock_guard lock(mutex_);
  if (cancelled_ || ended_) return;
  cancelled_ = true;
  if (!stopping_since_) stopping_since_ = std::chrono::steady_clock::now();
  // Members in other processes are told why, so that they fail as cancelled (naming the rank
  // that cancelled) rather than as having lost a peer: the notices go first, and the links stay
  // up until the job ends (close_receivers), so that no closed connection overtakes them.
  for (net::Group* g : groups_) {
    const JobFailed why(g->rank(), FailureCause::kCancelled, "rank " + std::to_string(g->rank()) + ": " + kCancelledText);
    for (int peer = 0; peer < g->size(); ++peer) {
      if (peer == g->rank()) continue;
      try {
        g->send(peer, failure_message(why));
      } catch (const std::exception&) {
      }
    }
  }
  for (net::Group* g : groups_) g->close_receivers(kCancelledText);
  changed_.notify_all();
}

bool JobControl::cancelled() const {
  std::lock_guard lock(mutex_);
  return cancelled_;
}

void JobControl::attach(net::Group& group) {
  std::lock_guard lock(mutex_);
  groups_.push_back(&group);
  if (cancelled_) group.close(kCancelledText);
}

void JobControl::detach_all() {
  std::lock_guard lock(mutex_);
  groups_.clear();
}

void JobControl::note_failure(std::exception_ptr error) {
  std::lock_guard lock(mutex_);
  if (!first_failure_) first_failure_ = std::move(error);
  if (!stopping_since_) stopping_since_ = std::chrono::steady_clock::now();
  changed_.notify_all();
}

void JobControl::finish(std::exception_ptr error) {
  std::lock_guard lock(mutex_);
  // After a cancel the parts' errors are echoes of the closing: the outcome is the cancel.
  error_ = cancelled_ ? std::make_exception_ptr(JobFailed(-1, FailureCause::kCancelled, kCancelledText)) : std::move(error);
  ended_ = true;
  changed_.notify_all();
}

JobControl::Outcome JobControl::wait(std::chrono::steady_clock::time_point deadline, std::chrono::milliseconds grace) {
  std::unique_lock lock(mutex_);
  for (;;) {
    if (ended_) return Outcome::kEnded;
    auto until = deadline;
    if (stopping_since_) {
      const auto give_up = *stopping_since_ + grace;
      if (std::chrono::steady_clock::now() >= give_up) return Outcome::kAbandoned;
      until = std::min(until, give_up);
    }
    if (changed_.wait_until(lock, until) == std::cv_status::timeout && until == deadline && !ended_) {
      if (stopping_since_ && std::chrono::steady_clock::now() >= *stopping_since_ + grace) return Outcome::kAbandoned;
      return Outcome::kRunning;
    }
  }
}

std::exception_ptr JobControl::outcome() const {
  std::lock_guard lock(mutex_);
  if (ended_) return error_;
  if (cancelled_) return std::make_exception_ptr(JobFailed(-1, FailureCause::kCancelled, kCancelledText));
  if (!first_failure_) return nullptr;
  // In one process the part's own exception is at hand: the embedder gets its own type.
  try {
    std::rethrow_exception(first_failure_);
  } catch (const JobFailed& e) {
    if (e.original()) return e.original();
  } catch (...) {
  }
  return first_failure_;
}

bool JobControl::wait_ended(std::chrono::steady_clock::time_point deadline) {
  std::unique_lock lock(mutex_);
  return changed_.wait_until(lock, deadline, [&] { return ended_; });
}

}  // namespace gyre::runtime
