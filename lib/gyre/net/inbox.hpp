// gyre/net/inbox.hpp — one Group's inbox shared by several consumers, each taking the messages it accepts.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <optional>
#include <string>

#include "gyre/net/group.hpp"

namespace gyre::net {

// A worker's engine waits for blocks and phase signals while its kernel, inside a visit, waits
// for a collective's messages; both arrive through the one Group. Whoever waits reads the
// group for everyone and sets aside what another consumer accepts (MPI-style matching), so
// no extra thread is needed and nothing is lost or reordered per consumer.
class Inbox {
 public:
  using Accept = std::function<bool(const Message&)>;

  // `interrupts`: messages that end every other consumer's wait (a job failure): a receive
  // that does not accept such a message throws GroupClosed with `describe(message)` once it
  // has been set aside, leaving it for the consumer that does accept it.
  Inbox(Group& group, Accept interrupts = {}, std::function<std::string(const Message&)> describe = {});

  // The oldest message `accept` takes, or nullopt once `deadline` passes. Throws GroupClosed
  // when the group is closed (after handing out what arrived before) or on an interrupt.
  std::optional<Message> receive(const Accept& accept, Clock::time_point deadline);

  Group& group() noexcept { return group_; }

 private:
  std::optional<Message> take(const Accept& accept);  // under mutex_; throws on interrupt/close

  Group& group_;
  Accept interrupts_;
  std::function<std::string(const Message&)> describe_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<Message> set_aside_;
  bool reading_ = false;
  std::optional<std::string> closed_;
};

}  // namespace gyre::net
