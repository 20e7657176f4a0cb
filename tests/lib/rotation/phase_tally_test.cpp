// tests/lib/rotation/phase_tally_test.cpp — the no-barrier control plane on every backend: phases summed as workers finish them, failures named.
#include <doctest/doctest.h>

#include <future>
#include <memory>
#include <vector>

#include "gyre/rotation/phase_tally.hpp"
#include "gyre/wire/codec.hpp"
#include "lib/net/backends.hpp"

using namespace gyre;
using namespace gyre::rotation;
using namespace std::chrono_literals;

namespace {

// Rank 0 tallies, ranks 1..workers report.
template <class Backend>
struct TallyJob {
  explicit TallyJob(int workers) : groups(Backend::make(workers + 1)) {
    for (auto& g : groups) mailboxes.push_back(std::make_unique<runtime::Mailbox>(*g));
    for (int r = 1; r <= workers; ++r) ranks.push_back(r);
  }
  void report(int rank, std::uint64_t phase, double value) {
    groups[static_cast<std::size_t>(rank)]->send(0, encode_phase_done(phase, {value, 1.0}));
  }
  std::vector<std::unique_ptr<net::Group>> groups;
  std::vector<std::unique_ptr<runtime::Mailbox>> mailboxes;
  std::vector<int> ranks;
};

// Train phases until `phases` have been seen; records what the policy was handed.
PhasePolicy record(std::vector<PhaseResult>& seen, std::size_t phases) {
  return [&seen, phases](const PhaseResult* last) -> std::optional<PhaseKind> {
    if (last) seen.push_back(*last);
    if (seen.size() == phases) return std::nullopt;
    return seen.size() % 2 == 1 ? PhaseKind::kEvaluate : PhaseKind::kTrain;
  };
}

}  // namespace

TEST_CASE_TEMPLATE("a phase is handed on once every worker has reported it, however far ahead some run", B,
                   GYRE_TEST_BACKENDS) {
  TallyJob<B> job(3);
  std::vector<PhaseResult> seen;
  auto tally = std::async(std::launch::async, [&] { PhaseTally(*job.mailboxes[0], job.ranks, 20s).run(record(seen, 3)); });
  // Rank 3 runs all three phases before the others finish the first.
  for (std::uint64_t p = 0; p < 3; ++p) job.report(3, p, 100.0 * static_cast<double>(p + 1));
  for (std::uint64_t p = 0; p < 3; ++p)
    for (int r : {1, 2}) job.report(r, p, static_cast<double>(r));
  tally.get();
  REQUIRE(seen.size() == 3);
  for (std::uint64_t p = 0; p < 3; ++p) {
    CHECK(seen[p].phase == p);
    CHECK(seen[p].sums[0] == 3.0 + 100.0 * static_cast<double>(p + 1));
    CHECK(seen[p].sums[1] == 3.0);
    CHECK(seen[p].seconds >= 0);
  }
  CHECK(seen[0].kind == PhaseKind::kTrain);
  CHECK(seen[1].kind == PhaseKind::kEvaluate);  // the policy's answer names the next phase's kind
}

TEST_CASE_TEMPLATE("a report out of order fails the job naming its sender", B, GYRE_TEST_BACKENDS) {
  TallyJob<B> job(2);
  std::vector<PhaseResult> seen;
  auto tally = std::async(std::launch::async, [&] { PhaseTally(*job.mailboxes[0], job.ranks, 20s).run(record(seen, 5)); });
  job.report(2, 0, 1);
  job.report(2, 2, 1);  // skips phase 1
  CHECK_THROWS_WITH_AS(tally.get(), doctest::Contains("rank 2 reported phase 2 during phase 1"), runtime::JobFailed);
  // The workers are told.
  CHECK_THROWS_AS(job.mailboxes[1]->receive([](const net::Message&) { return true; }, net::Clock::now() + 10s),
                  runtime::JobFailed);
}

TEST_CASE_TEMPLATE("silence past the timeout fails the job naming the workers still on the oldest phase", B,
                   GYRE_TEST_BACKENDS) {
  TallyJob<B> job(3);
  std::vector<PhaseResult> seen;
  auto tally = std::async(std::launch::async, [&] { PhaseTally(*job.mailboxes[0], job.ranks, 300ms).run(record(seen, 5)); });
  job.report(2, 0, 1);
  CHECK_THROWS_WITH_AS(tally.get(), doctest::Contains("no report of phase 0 from rank(s) 1,3 within 300 ms"),
                       runtime::JobFailed);
}

TEST_CASE_TEMPLATE("a policy that throws (a diverged model) fails the job with its text", B, GYRE_TEST_BACKENDS) {
  TallyJob<B> job(1);
  auto tally = std::async(std::launch::async, [&] {
    PhaseTally(*job.mailboxes[0], job.ranks, 20s).run([](const PhaseResult* last) -> std::optional<PhaseKind> {
      if (last) throw std::runtime_error("training diverged");
      return PhaseKind::kTrain;
    });
  });
  job.report(1, 0, 1);
  CHECK_THROWS_WITH_AS(tally.get(), doctest::Contains("scheduler: training diverged"), runtime::JobFailed);
}

namespace {
struct PolicyDiverged : std::runtime_error {
  using std::runtime_error::runtime_error;
};
}  // namespace

TEST_CASE_TEMPLATE("a policy's exception of the embedder's own type rides along with the job's failure", B, GYRE_TEST_BACKENDS) {
  TallyJob<B> job(1);
  auto tally = std::async(std::launch::async, [&] {
    PhaseTally(*job.mailboxes[0], job.ranks, 20s).run([](const PhaseResult* last) -> std::optional<PhaseKind> {
      if (last) throw PolicyDiverged("loss 1e30");
      return PhaseKind::kTrain;
    });
  });
  job.report(1, 0, 1);
  try {
    tally.get();
    FAIL("the policy's throw must fail the job");
  } catch (const runtime::JobFailed& e) {
    REQUIRE(e.original());
    CHECK_THROWS_AS(std::rethrow_exception(e.original()), PolicyDiverged);
  }
  runtime::Mailbox& worker = *job.mailboxes[1];  // the worker is told, with the text
  CHECK_THROWS_WITH_AS(worker.receive([](const net::Message&) { return false; }, net::Clock::now() + 5s),
                       doctest::Contains("loss 1e30"), runtime::JobFailed);
}
