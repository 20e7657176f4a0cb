// gyre/runtime/mailbox.hpp — the one receive path: a member's inbox shared by its consumers, failures included.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <optional>
#include <string>

#include "gyre/base/export.hpp"
#include "gyre/net/group.hpp"
#include "gyre/runtime/failure.hpp"

namespace gyre::runtime {

class JobControl;  // job.hpp, which includes this header

// A worker's engine waits for blocks and phase signals while its kernel, inside a visit, waits
// for a collective's messages; both arrive through the one Group. Whoever waits reads the
// group for everyone and sets aside what another consumer accepts (MPI-style matching), so
// no extra thread is needed and nothing is lost or reordered per consumer.
//
// A failure notice is for everyone: once one has arrived, every receive (after handing out
// what its consumer accepts of the messages that came before) throws the JobFailed it carries.
class GYRE_API Mailbox {
 public:
  using Accept = std::function<bool(const net::Message&)>;

  // `control`: the job's (Job::control), for cancelled(); null when nothing outside stops it.
  explicit Mailbox(net::Group& group, const JobControl* control = nullptr) : group_(group), control_(control) {}

  // The oldest message `accept` takes, or nullopt once `deadline` passes. Throws JobFailed
  // once a failure notice has arrived, net::GroupClosed once the group is closed (after
  // handing out what arrived before either).
  std::optional<net::Message> receive(const Accept& accept, net::Clock::time_point deadline);
  // The oldest message `accept` takes of those that have already arrived, without waiting:
  // what arrived is read and set aside for its consumers, in order, on the way. nullopt while
  // another consumer is reading. Throws as receive() does.
  std::optional<net::Message> receive_arrived(const Accept& accept);

  net::Group& group() noexcept { return group_; }
  // Whether the job has been cancelled: engines look before each visit or step, so that a
  // kernel stops at its next boundary rather than finishing the work already queued.
  bool cancelled() const;

 private:
  std::optional<net::Message> take(const Accept& accept);  // under mutex_; throws on failure/close

  net::Group& group_;
  const JobControl* control_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<net::Message> set_aside_;
  bool reading_ = false;
  std::optional<JobFailed> failed_;
  std::optional<net::GroupClosed> closed_;
};

}  // namespace gyre::runtime
