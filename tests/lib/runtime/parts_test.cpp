// tests/lib/runtime/parts_test.cpp — which error the caller of a job's parts sees: the root cause, of its own type.
#include <doctest/doctest.h>

#include <atomic>
#include <stdexcept>
#include <string>

#include "gyre/net/inproc.hpp"
#include "gyre/runtime/failure.hpp"
#include "gyre/runtime/mailbox.hpp"
#include "gyre/runtime/parts.hpp"

using namespace gyre;
using namespace std::chrono_literals;
using runtime::FailureCause;
using runtime::JobFailed;

namespace {

struct KernelExploded : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace

TEST_CASE("the part that failed first is the error, not the echoes of the parts that heard of it") {
  // Rank 2 throws the embedder's own type; ranks 0 and 1 wait on their mailboxes and end when
  // their group is closed (inproc: rank 2's close closes the job) or told.
  auto groups = net::make_inproc_groups(3);
  std::atomic<int> ended{0};
  try {
    runtime::run_parts(groups, [&](int rank) {
      if (rank == 2) throw KernelExploded("kernel exploded");
      runtime::Mailbox mailbox(*groups[static_cast<std::size_t>(rank)]);
      try {
        mailbox.receive([](const net::Message&) { return true; }, net::Clock::now() + 20s);
      } catch (...) {
        ++ended;
        throw JobFailed(-1, FailureCause::kPeerLost, "rank " + std::to_string(rank) + " heard of it");
      }
    });
    FAIL("run_parts returned");
  } catch (const KernelExploded& e) {
    CHECK(std::string(e.what()) == "kernel exploded");
  }
  CHECK(ended == 2);
}

TEST_CASE("a JobFailed keeping the embedder's exception gives way to that exception") {
  auto groups = net::make_inproc_groups(2);
  const auto original = std::make_exception_ptr(KernelExploded("inside a visit"));
  CHECK_THROWS_AS(runtime::run_parts(groups,
                                     [&](int rank) {
                                       if (rank == 0)
                                         throw JobFailed(0, FailureCause::kError, "worker 0: inside a visit", original);
                                     }),
                  KernelExploded);
}

TEST_CASE("a JobFailed beats a bare GroupClosed; with only those, the first of the best is kept") {
  runtime::RootCause cause;
  cause.offer(std::make_exception_ptr(net::GroupClosed("closed under me")));
  cause.offer(std::make_exception_ptr(JobFailed(3, FailureCause::kTimeout, "rank 3 went quiet")));
  cause.offer(std::make_exception_ptr(JobFailed(1, FailureCause::kError, "later echo")));
  REQUIRE(cause);
  CHECK_THROWS_WITH_AS(cause.rethrow(), "rank 3 went quiet", JobFailed);
}

TEST_CASE("run_beside: the worker's own error beats the scheduler's echo of it") {
  CHECK_THROWS_AS(runtime::run_beside([] { throw KernelExploded("worker's own"); },
                                      [] { throw JobFailed(0, FailureCause::kError, "scheduler: worker 0 failed"); }),
                  KernelExploded);
  CHECK_THROWS_WITH_AS(runtime::run_beside([] { throw JobFailed(0, FailureCause::kError, "main's"); },
                                           [] { throw JobFailed(1, FailureCause::kError, "beside's"); }),
                       "beside's", JobFailed);
}
