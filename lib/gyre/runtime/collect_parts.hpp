// gyre/runtime/collect_parts.hpp — at the end of a job, one member awaits one part from each of several others (internal, not installed).
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "gyre/net/group.hpp"
#include "gyre/runtime/failure.hpp"
#include "gyre/runtime/mailbox.hpp"
#include "gyre/runtime/receiver.hpp"

namespace gyre::runtime {

// Receives one message of `type` from each of `from` (ranks), within `timeout` in all, and hands
// each to `take(message)`. `who` names the receiver in errors: a rank that sends none in time
// fails the job as a timeout naming it; a sender not among `from`, or one sending twice, and a
// part `take` refuses (std::runtime_error) fail it as a bad message naming the sender.
template <class Take>
void collect_parts(Mailbox& inbox, std::uint16_t type, std::span<const int> from, std::chrono::milliseconds timeout,
                   const std::string& who, Take&& take) {
  std::vector<int> awaited(from.begin(), from.end());
  const auto deadline = net::Clock::now() + timeout;
  const Receiver receiver(inbox, who, timeout);
  const auto silent = [&] { return silence_of("part", awaited); };
  while (!awaited.empty()) {
    const net::Message m = receiver.receive([type](const net::Message& x) { return x.type == type; }, silent, deadline);
    const int sender = m.sender;
    const std::string from_text = who + ": rank " + std::to_string(sender);
    const auto it = std::find(awaited.begin(), awaited.end(), sender);
    if (it == awaited.end())
      throw JobFailed(sender, FailureCause::kBadMessage, from_text + " sent a part it does not owe");
    awaited.erase(it);
    try {
      take(m);
    } catch (const std::runtime_error& e) {
      throw JobFailed(sender, FailureCause::kBadMessage, from_text + " sent a bad part: " + e.what());
    }
  }
}

}  // namespace gyre::runtime
