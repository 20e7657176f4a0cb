// gyre/runtime/receiver.cpp — waits that end in a message or in the job's failure.
#include "gyre/runtime/receiver.hpp"

namespace gyre::runtime {

JobFailed peer_lost(const net::GroupClosed& closed, const std::string& who) {
  return JobFailed(closed.peer(), FailureCause::kPeerLost,
                   (who.empty() ? std::string() : who + ": ") + "transport closed: " + closed.what());
}

template <class Receive>
auto Receiver::guarded(Receive&& receive) const -> decltype(receive()) {
  try {
    return receive();
  } catch (const JobFailed& e) {
    if (role_ == Role::kHub) fail(e);  // another member's notice: passed on as it came
    throw;
  } catch (const net::GroupClosed& e) {
    fail(peer_lost(e, who_));
  }
}

net::Message Receiver::receive(const Mailbox::Accept& accept, const std::function<Silence()>& silent) const {
  return receive(accept, silent, net::Clock::now() + timeout_);
}

net::Message Receiver::receive(const Mailbox::Accept& accept, const std::function<Silence()>& silent,
                               net::Clock::time_point deadline) const {
  if (auto m = receive_until(accept, deadline)) return std::move(*m);
  const Silence s = silent();
  fail(s.blamed, FailureCause::kTimeout, "no " + s.what + " within " + std::to_string(timeout_.count()) + " ms");
}

std::optional<net::Message> Receiver::receive_until(const Mailbox::Accept& accept, net::Clock::time_point deadline) const {
  return guarded([&] { return mailbox_.receive(accept, deadline); });
}

std::optional<net::Message> Receiver::receive_arrived(const Mailbox::Accept& accept) const {
  return guarded([&] { return mailbox_.receive_arrived(accept); });
}

void Receiver::fail(const JobFailed& failure) const { fail_job(mailbox_.group(), tell_, failure); }

void Receiver::fail(int rank, FailureCause cause, const std::string& why) const {
  fail(JobFailed(rank, cause, (who_.empty() ? std::string() : who_ + ": ") + why));
}

}  // namespace gyre::runtime
