// tests/lib/runtime/mailbox_test.cpp — one receive path: per-consumer matching, and a failure notice ends every wait.
#include <doctest/doctest.h>

#include <future>
#include <string>

#include "gyre/runtime/mailbox.hpp"
#include "lib/net/backends.hpp"

using namespace gyre;
using namespace std::chrono_literals;
using runtime::FailureCause;
using runtime::JobFailed;

namespace {

net::Message typed(std::uint16_t type, std::uint64_t tag = 0) {
  net::Message m;
  m.type = type;
  m.tag = tag;
  return m;
}
auto of_type(std::uint16_t type) {
  return [type](const net::Message& m) { return m.type == type; };
}

}  // namespace

TEST_CASE_TEMPLATE("each consumer takes its own messages, in order, whoever reads", B, GYRE_TEST_BACKENDS) {
  auto groups = B::make(2);
  runtime::Mailbox mailbox(*groups[1]);
  for (std::uint64_t i = 0; i < 3; ++i) {
    groups[0]->send(1, typed(0x1001, i));
    groups[0]->send(1, typed(0x1002, i));
  }
  for (std::uint64_t i = 0; i < 3; ++i) {
    auto m = mailbox.receive(of_type(0x1002), net::Clock::now() + 5s);
    REQUIRE(m);
    CHECK(m->tag == i);
  }
  for (std::uint64_t i = 0; i < 3; ++i) {
    auto m = mailbox.receive(of_type(0x1001), net::Clock::now() + 5s);
    REQUIRE(m);
    CHECK(m->tag == i);
  }
  CHECK_FALSE(mailbox.receive(of_type(0x1001), net::Clock::now() + 50ms));
}

TEST_CASE_TEMPLATE("a failure notice ends every waiter's wait with the JobFailed it carries", B, GYRE_TEST_BACKENDS) {
  auto groups = B::make(2);
  runtime::Mailbox mailbox(*groups[1]);
  const auto wait_for = [&](std::uint16_t type) {
    return std::async(std::launch::async, [&mailbox, type]() -> std::string {
      try {
        mailbox.receive(of_type(type), net::Clock::now() + 20s);
        return "got a message";
      } catch (const JobFailed& e) {
        return std::to_string(e.rank()) + ":" + e.what();
      }
    });
  };
  auto a = wait_for(0x1001);
  auto b = wait_for(0x1002);
  groups[0]->send(1, typed(0x1001));  // came before the notice: still handed out
  groups[0]->send(1, runtime::failure_message(JobFailed(0, FailureCause::kError, "rank 0: gave up")));
  const std::string first = a.get();
  CHECK((first == "got a message" || first == "0:rank 0: gave up"));
  CHECK(b.get() == "0:rank 0: gave up");
  // And every later wait, too.
  CHECK_THROWS_WITH_AS(mailbox.receive(of_type(0x1001), net::Clock::now() + 1s), "rank 0: gave up", JobFailed);
}

TEST_CASE("what came before a notice is still handed out; what came after it is not") {
  auto groups = net::make_inproc_groups(2);
  runtime::Mailbox mailbox(*groups[1]);
  groups[0]->send(1, typed(0x1003));
  groups[0]->send(1, runtime::failure_message(JobFailed(0, FailureCause::kError, "late")));
  groups[0]->send(1, typed(0x1004));
  // Reading for 0x1004 sets 0x1003 aside and meets the notice: the failure, not 0x1004.
  CHECK_THROWS_AS(mailbox.receive(of_type(0x1004), net::Clock::now() + 1s), JobFailed);
  auto early = mailbox.receive(of_type(0x1003), net::Clock::now() + 1s);
  REQUIRE(early);
  CHECK(early->type == 0x1003);
}

TEST_CASE("a closed group ends the waits with GroupClosed after what arrived before") {
  auto groups = net::make_inproc_groups(2);
  runtime::Mailbox mailbox(*groups[1]);
  groups[0]->send(1, typed(0x1005));
  auto m = mailbox.receive(of_type(0x1006), net::Clock::now() + 50ms);  // sets 0x1005 aside
  CHECK_FALSE(m);
  groups[1]->close("shut");
  CHECK(mailbox.receive(of_type(0x1005), net::Clock::now() + 1s));
  CHECK_THROWS_AS(mailbox.receive(of_type(0x1005), net::Clock::now() + 1s), net::GroupClosed);
}
