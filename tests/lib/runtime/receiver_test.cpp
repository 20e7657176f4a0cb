// tests/lib/runtime/receiver_test.cpp — every engine member's wait: a message, or the job's failure, the same on every backend.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "gyre/runtime/receiver.hpp"
#include "lib/net/backends.hpp"

using namespace gyre;
using namespace std::chrono_literals;
using runtime::FailureCause;
using runtime::JobFailed;
using runtime::Receiver;

namespace {

net::Message receiver_message(std::uint16_t type) {
  net::Message m;
  m.type = type;
  return m;
}
bool is_report(const net::Message& m) { return m.type == 0x1001; }
runtime::Silence rank_2_owes() { return {2, "report from rank 2"}; }

// The notice `group` holds, if any arrives within a second.
std::optional<JobFailed> notice_at(net::Group& group) {
  runtime::Mailbox inbox(group);
  try {
    inbox.receive([](const net::Message&) { return false; }, net::Clock::now() + 1s);
  } catch (const JobFailed& e) {
    return e;
  }
  return std::nullopt;
}

}  // namespace

TEST_CASE_TEMPLATE("a receiver hands out what it accepts and leaves the rest for other consumers", B, GYRE_TEST_BACKENDS) {
  auto groups = B::make(2);
  runtime::Mailbox inbox(*groups[1]);
  const Receiver receiver(inbox, "scheduler", 5000ms);
  groups[0]->send(1, receiver_message(0x2002));
  groups[0]->send(1, receiver_message(0x1001));
  const net::Message m = receiver.receive(is_report, rank_2_owes);
  CHECK(m.type == 0x1001);
  CHECK(m.sender == 0);
  const auto other = inbox.receive([](const net::Message& x) { return x.type == 0x2002; }, net::Clock::now() + 5s);
  CHECK(other.has_value());
  CHECK_FALSE(receiver.receive_until(is_report, net::Clock::now() + 20ms).has_value());
}

TEST_CASE_TEMPLATE("silence fails the job as a time-out blamed on who owes the message, and the steered members hear of it", B,
                   GYRE_TEST_BACKENDS) {
  auto groups = B::make(3);
  runtime::Mailbox inbox(*groups[0]);
  const Receiver receiver(inbox, "scheduler", 100ms, {1, 2}, Receiver::Role::kHub);
  try {
    receiver.receive(is_report, rank_2_owes);
    FAIL("silence must fail the job");
  } catch (const JobFailed& e) {
    CHECK(e.cause() == FailureCause::kTimeout);
    CHECK(e.rank() == 2);
    CHECK(std::string(e.what()) == "scheduler: no report from rank 2 within 100 ms");
  }
  for (int r : {1, 2}) {
    CAPTURE(r);
    const auto heard = notice_at(*groups[static_cast<std::size_t>(r)]);
    REQUIRE(heard.has_value());
    CHECK(heard->rank() == 2);
    CHECK(heard->cause() == FailureCause::kTimeout);
  }
}

TEST_CASE_TEMPLATE("a hub passes another member's notice on to those it steers; a member only rethrows it", B, GYRE_TEST_BACKENDS) {
  for (const auto role : {Receiver::Role::kHub, Receiver::Role::kMember}) {
    const bool hub = role == Receiver::Role::kHub;
    CAPTURE(hub);
    auto groups = B::make(3);
    runtime::Mailbox inbox(*groups[0]);
    const Receiver receiver(inbox, "scheduler", 5000ms, {2}, role);
    groups[1]->send(0, runtime::failure_message(JobFailed(1, FailureCause::kBadInput, "rank 1: bad line 3")));
    try {
      receiver.receive(is_report, rank_2_owes);
      FAIL("the notice must end the wait");
    } catch (const JobFailed& e) {
      CHECK(e.rank() == 1);
      CHECK(e.cause() == FailureCause::kBadInput);
      CHECK(std::string(e.what()) == "rank 1: bad line 3");  // as it came, not rewritten
    }
    CHECK(notice_at(*groups[2]).has_value() == hub);
  }
}

TEST_CASE_TEMPLATE("a closed transport fails the job as a lost peer, blamed on the peer whose loss closed it", B,
                   GYRE_TEST_BACKENDS) {
  auto groups = B::make(2);
  runtime::Mailbox inbox(*groups[0]);
  const Receiver receiver(inbox, "worker 0", 5000ms);
  groups[0]->close("rank 1 (127.0.0.1:9) failed: silent for 5838 ms");  // closed here: no peer to blame
  try {
    receiver.receive(is_report, rank_2_owes);
    FAIL("a closed transport must end the wait");
  } catch (const JobFailed& e) {
    CHECK(e.cause() == FailureCause::kPeerLost);
    CHECK(e.rank() == -1);
    CHECK(std::string(e.what()).starts_with("worker 0: transport closed: "));
  }
  const JobFailed lost = runtime::peer_lost(net::GroupClosed("rank 3 failed", 3), "scheduler");
  CHECK(lost.rank() == 3);
  CHECK(std::string(lost.what()) == "scheduler: transport closed: rank 3 failed");
}

TEST_CASE("a silence names every rank that still owes, and blames the first") {
  const std::vector<int> ranks{4, 5, 6, 7};
  const auto s = runtime::silence_of("report of phase 2", ranks, [](std::size_t i) { return i % 2 == 1; });
  CHECK(s.blamed == 5);
  CHECK(s.what == "report of phase 2 from rank(s) 5,7");
  const auto none = runtime::silence_of("report", ranks, [](std::size_t) { return false; });
  CHECK(none.blamed == -1);
}
