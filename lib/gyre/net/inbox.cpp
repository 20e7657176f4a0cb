// gyre/net/inbox.cpp — shared reading of a group's inbox with per-consumer matching.
#include "gyre/net/inbox.hpp"

#include <algorithm>

namespace gyre::net {

Inbox::Inbox(Group& group, Accept interrupts, std::function<std::string(const Message&)> describe)
    : group_(group), interrupts_(std::move(interrupts)), describe_(std::move(describe)) {}

std::optional<Message> Inbox::take(const Accept& accept) {
  for (auto it = set_aside_.begin(); it != set_aside_.end(); ++it)
    if (accept(*it)) {
      Message m = std::move(*it);
      set_aside_.erase(it);
      return m;
    }
  if (interrupts_)
    for (const Message& m : set_aside_)
      if (interrupts_(m)) throw GroupClosed(describe_ ? describe_(m) : "interrupted");
  if (closed_) throw GroupClosed(*closed_);
  return std::nullopt;
}

std::optional<Message> Inbox::receive(const Accept& accept, Clock::time_point deadline) {
  std::unique_lock lock(mutex_);
  for (;;) {
    if (auto m = take(accept)) return m;
    if (Clock::now() >= deadline) return std::nullopt;
    if (reading_) {
      changed_.wait_until(lock, deadline);
      continue;
    }
    // Read for everyone: keep what we accept, set the rest aside and wake the others.
    reading_ = true;
    lock.unlock();
    std::optional<Message> m;
    std::optional<std::string> closed;
    try {
      m = group_.receive(deadline);
    } catch (const GroupClosed& e) {
      closed = e.what();
    }
    lock.lock();
    reading_ = false;
    if (closed && !closed_) closed_ = closed;
    if (m && accept(*m)) {
      changed_.notify_all();  // someone else may take over reading
      return m;
    }
    if (m) set_aside_.push_back(std::move(*m));
    changed_.notify_all();
  }
}

}  // namespace gyre::net
