// gyre/runtime/mailbox.cpp — shared reading of a group's inbox with per-consumer matching.
#include "gyre/runtime/mailbox.hpp"

#include "gyre/runtime/job.hpp"

namespace gyre::runtime {

bool Mailbox::cancelled() const { return control_ && control_->cancelled(); }

std::optional<net::Message> Mailbox::take(const Accept& accept) {
  for (auto it = set_aside_.begin(); it != set_aside_.end(); ++it)
    if (accept(*it)) {
      net::Message m = std::move(*it);
      set_aside_.erase(it);
      return m;
    }
  if (failed_) throw *failed_;
  if (closed_) throw *closed_;
  return std::nullopt;
}

std::optional<net::Message> Mailbox::receive(const Accept& accept, net::Clock::time_point deadline) {
  std::unique_lock lock(mutex_);
  for (;;) {
    if (auto m = take(accept)) return m;
    if (net::Clock::now() >= deadline) return std::nullopt;
    if (reading_) {
      changed_.wait_until(lock, deadline);
      continue;
    }
    // Read for everyone: keep what we accept, set the rest aside and wake the others.
    reading_ = true;
    lock.unlock();
    std::optional<net::Message> m;
    std::optional<net::GroupClosed> closed;
    try {
      m = group_.receive(deadline);
    } catch (const net::GroupClosed& e) {
      closed = e;
    }
    lock.lock();
    reading_ = false;
    if (closed && !closed_) closed_ = closed;
    if (m && is_failure_notice(*m)) {
      if (!failed_) failed_ = read_failure(*m);  // the first notice names the root cause
    } else if (m && accept(*m)) {
      changed_.notify_all();  // someone else may take over reading
      return m;
    } else if (m) {
      set_aside_.push_back(std::move(*m));
    }
    changed_.notify_all();
  }
}

std::optional<net::Message> Mailbox::receive_arrived(const Accept& accept) {
  std::lock_guard lock(mutex_);
  if (auto m = take(accept)) return m;
  if (reading_) return std::nullopt;
  // A deadline already past: the group hands out what it holds and never waits.
  const auto now = net::Clock::time_point::min();
  for (;;) {
    std::optional<net::Message> m;
    try {
      m = group_.receive(now);
    } catch (const net::GroupClosed& e) {
      if (!closed_) closed_ = e;
    }
    if (m && is_failure_notice(*m)) {
      if (!failed_) failed_ = read_failure(*m);
      continue;
    }
    if (m && accept(*m)) {
      changed_.notify_all();
      return m;
    }
    if (!m) break;
    set_aside_.push_back(std::move(*m));
  }
  changed_.notify_all();
  return take(accept);
}

}  // namespace gyre::runtime
