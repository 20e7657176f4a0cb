// tests/lib/runtime/failure_test.cpp — the failure notice carries rank, cause and the whole text; a malformed one names its sender.
#include <doctest/doctest.h>

#include <stdexcept>
#include <string>

#include "gyre/net/inproc.hpp"
#include "gyre/runtime/failure.hpp"
#include "gyre/wire/codec.hpp"

using namespace gyre;
using runtime::FailureCause;
using runtime::JobFailed;

namespace {

// What a notice looks like on arrival: the transport fills in the sender.
net::Message arrived(net::Message m, int sender) {
  m.sender = sender;
  return m;
}

struct OwnError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace

TEST_CASE("a failure notice carries the failing rank, the cause and the full text") {
  const std::string text = "worker 2: " + std::string(10000, 'x');  // far past the old 240 characters
  const auto m = arrived(runtime::failure_message(JobFailed(2, FailureCause::kTimeout, text)), 2);
  CHECK(runtime::is_failure_notice(m));
  const JobFailed back = runtime::read_failure(m);
  CHECK(back.rank() == 2);
  CHECK(back.cause() == FailureCause::kTimeout);
  CHECK(std::string(back.what()) == text);
  CHECK(runtime::to_string(back.cause()) == "timeout");
}

TEST_CASE("a text beyond the notice's bound is cut with a note saying how much") {
  const std::string text(runtime::kMaxFailureText + 5000, 'y');
  const auto back = runtime::read_failure(arrived(runtime::failure_message(JobFailed(1, FailureCause::kError, text)), 1));
  const std::string got = back.what();
  CHECK(got.size() <= runtime::kMaxFailureText);
  CHECK(got.find("more bytes)") != std::string::npos);
}

TEST_CASE("a malformed notice is a failure blamed on its sender") {
  net::Message m;
  m.type = runtime::kFailureNotice;
  m.meta = std::vector<std::byte>(7);
  const auto bad = runtime::read_failure(arrived(std::move(m), 3));
  CHECK(bad.rank() == 3);
  CHECK(bad.cause() == FailureCause::kBadMessage);
  CHECK(std::string(bad.what()).find("rank 3 sent a malformed failure notice") == 0);

  // An unknown cause, and a text longer than any notice may carry.
  auto unknown = runtime::failure_message(JobFailed(1, FailureCause::kError, "x"));
  unknown.meta.back() = std::byte{77};
  CHECK(std::string(runtime::read_failure(arrived(std::move(unknown), 1)).what()).find("unknown cause 77") !=
        std::string::npos);
  auto huge = runtime::failure_message(JobFailed(1, FailureCause::kError, "x"));
  huge.body = Buffer(runtime::kMaxFailureText + 1);
  CHECK(runtime::read_failure(arrived(std::move(huge), 1)).cause() == FailureCause::kBadMessage);
}

TEST_CASE("fail_job tells every listed rank, skips unreachable ones, and throws the failure") {
  auto groups = net::make_inproc_groups(3);
  const JobFailed failure(0, FailureCause::kError, "rank 0: out of patience");
  CHECK_THROWS_WITH_AS(runtime::fail_job(*groups[0], {1, 2, 99}, failure), "rank 0: out of patience", JobFailed);
  for (int r : {1, 2}) {
    auto m = groups[static_cast<std::size_t>(r)]->receive(net::Clock::now() + std::chrono::seconds(1));
    REQUIRE(m);
    CHECK(runtime::read_failure(*m).rank() == 0);
  }
}

TEST_CASE("only the embedder's own exception types count as its own") {
  const auto as_ptr = [](auto e) { return std::make_exception_ptr(e); };
  CHECK(runtime::is_own_type(as_ptr(OwnError("mine"))));
  CHECK(runtime::is_own_type(as_ptr(42)));
  CHECK_FALSE(runtime::is_own_type(as_ptr(std::runtime_error("std"))));
  CHECK_FALSE(runtime::is_own_type(as_ptr(std::invalid_argument("std"))));
  CHECK_FALSE(runtime::is_own_type(as_ptr(JobFailed(1, FailureCause::kError, "gyre"))));
  CHECK_FALSE(runtime::is_own_type(nullptr));
}

TEST_CASE("as_job_failure: a JobFailed as it is, a closed transport as a lost peer, a refusal as bad input") {
  const auto as = [](auto e) { return runtime::as_job_failure(std::make_exception_ptr(e), 3); };
  const JobFailed relayed = as(JobFailed(1, FailureCause::kTimeout, "rank 1: late"));
  CHECK(relayed.rank() == 1);
  CHECK(relayed.cause() == FailureCause::kTimeout);
  CHECK(std::string(relayed.what()) == "rank 1: late");
  const JobFailed dropped = as(net::GroupClosed("rank 2 (10.0.0.2:9) failed: silent for 5838 ms", 2));
  CHECK(dropped.cause() == FailureCause::kPeerLost);
  CHECK(dropped.rank() == 2);  // the lost peer, not -1
  CHECK(as(net::GroupClosed("closed by this member")).rank() == -1);
  CHECK(std::string(dropped.what()).find("silent for 5838 ms") != std::string::npos);
  CHECK(as(std::invalid_argument("--rank must be positive")).cause() == FailureCause::kBadInput);
  const JobFailed own = as(std::runtime_error("out of patience"));
  CHECK(own.rank() == 3);
  CHECK(own.cause() == FailureCause::kError);
  CHECK(as(42).cause() == FailureCause::kError);
}
