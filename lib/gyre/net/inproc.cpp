// gyre/net/inproc.cpp — mailboxes under a mutex, one per rank.
#include "gyre/net/inproc.hpp"

#include <condition_variable>
#include <deque>
#include <mutex>
#include <stdexcept>
#include <string>

namespace gyre::net {
namespace {

class Mailbox {
 public:
  void push(Message m) {
    {
      std::lock_guard lock(mutex_);
      if (!closed_.empty()) return;  // a closed job drops late traffic, as a dead socket would
      queue_.push_back(std::move(m));
    }
    ready_.notify_one();
  }

  std::optional<Message> pop(Clock::time_point deadline) {
    std::unique_lock lock(mutex_);
    if (!ready_.wait_until(lock, deadline, [&] { return !queue_.empty() || !closed_.empty(); }))
      return std::nullopt;
    if (!closed_.empty()) throw GroupClosed(closed_);
    Message m = std::move(queue_.front());
    queue_.pop_front();
    return m;
  }

  void close(const std::string& reason) {
    {
      std::lock_guard lock(mutex_);
      if (closed_.empty()) closed_ = reason.empty() ? "closed" : reason;
    }
    ready_.notify_all();
  }

 private:
  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<Message> queue_;
  std::string closed_;
};

struct Network {
  explicit Network(int size) : mailboxes(static_cast<std::size_t>(size)) {}
  std::vector<Mailbox> mailboxes;
  void close(const std::string& reason) {
    for (auto& box : mailboxes) box.close(reason);
  }
};

class InprocLink final : public Link {
 public:
  InprocLink(std::shared_ptr<Network> net, int from, int to) : net_(std::move(net)), from_(from), to_(to) {}
  int peer() const noexcept override { return to_; }
  void send(Message message) override {
    message.sender = from_;
    net_->mailboxes[static_cast<std::size_t>(to_)].push(std::move(message));
  }

 private:
  std::shared_ptr<Network> net_;
  int from_;
  int to_;
};

class InprocGroup final : public Group {
 public:
  InprocGroup(std::shared_ptr<Network> net, int rank) : net_(std::move(net)), rank_(rank) {
    const int n = static_cast<int>(net_->mailboxes.size());
    for (int peer = 0; peer < n; ++peer) links_.emplace_back(net_, rank_, peer);
  }
  int rank() const noexcept override { return rank_; }
  int size() const noexcept override { return static_cast<int>(links_.size()); }
  Link& link(int peer) override {
    if (peer < 0 || peer >= size()) throw std::out_of_range("no rank " + std::to_string(peer));
    return links_[static_cast<std::size_t>(peer)];
  }
  std::optional<Message> receive(Clock::time_point deadline) override {
    return net_->mailboxes[static_cast<std::size_t>(rank_)].pop(deadline);
  }
  void close(const std::string& reason) override { net_->close(reason); }

 private:
  std::shared_ptr<Network> net_;
  int rank_;
  std::vector<InprocLink> links_;
};

}  // namespace

std::vector<std::unique_ptr<Group>> make_inproc_groups(int size) {
  if (size < 1) throw std::invalid_argument("a group needs at least one rank");
  auto net = std::make_shared<Network>(size);
  std::vector<std::unique_ptr<Group>> groups;
  for (int r = 0; r < size; ++r) groups.push_back(std::make_unique<InprocGroup>(net, r));
  return groups;
}

}  // namespace gyre::net
