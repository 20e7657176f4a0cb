// tests/apps/lasso/lasso_wire_test.cpp — Lasso rounds from a hostile scheduler or worker: bad coordinates and sums fail the job naming the sender.
#include <doctest/doctest.h>

#include <cmath>
#include <functional>
#include <future>
#include <limits>

#include "gyre/data/planted_regression.hpp"
#include "gyre/scheduler/rotation_driver.hpp"
#include "gyre/wire/channels.hpp"
#include "lasso/round_protocol.hpp"
#include "lasso/solver.hpp"
#include "lib/net/backends.hpp"
#include "support/job_failure.hpp"

using namespace gyre;
using namespace gyre::lasso;
using namespace std::chrono_literals;

namespace {

// How many registered channels hold `type`.
constexpr int holders(std::uint16_t type) {
  int n = 0;
  for (const channels::Channel& c : channels::kRegistry) n += c.contains(type) ? 1 : 0;
  return n;
}

constexpr std::uint32_t kFeatures = 20;

const data::RegressionSet& rows() {
  static const data::RegressionSet set = [] {
    data::PlantedRegressionOptions o;
    o.samples = 200;
    o.features = kFeatures;
    o.nnz_per_row = 5;
    o.support = 4;
    o.seed = 3;
    return data::generate_planted_regression(o).set;
  }();
  return set;
}

LassoConfig config() {
  LassoConfig c;
  c.workers = 2;
  c.threads = 1;
  c.lambdas = {0.01};
  return c;
}

// The failure notice `group` is sent within 10 s ("" if none).
std::string notice(net::Group& group) {
  const auto deadline = net::Clock::now() + 10s;
  while (auto m = group.receive(deadline))
    if (runtime::is_failure_notice(*m)) return runtime::read_failure(*m).what();
  return "";
}

// A real worker on rank 0 of `ranks`, the scheduler's rank being the last; rank `from` sends it
// `bad`. Returns the worker's error, and checks that the scheduler's rank was told it.
template <class B>
std::string worker_refuses(int ranks, int from, net::Message bad) {
  auto groups = B::make(ranks);
  const int scheduler_rank = ranks - 1;
  auto worker = std::async(std::launch::async, [&] {
    return gyre::test::job_failure([&] {
      runtime::Mailbox mailbox(*groups[0]);
      serve_rows(mailbox, rows(), response_offset(rows(), true), config(), scheduler_rank, 10s);
    });
  });
  groups[static_cast<std::size_t>(from)]->send(0, std::move(bad));
  const std::string what = worker.get();
  CHECK(notice(*groups[static_cast<std::size_t>(scheduler_rank)]) == what);
  return what;
}

net::Message request(std::uint64_t round, std::vector<CoefficientStep> steps, std::vector<std::uint32_t> features) {
  RoundRequest r;
  r.round = round;
  r.steps = std::move(steps);
  r.features = std::move(features);
  return encode_request(r);
}

// Workers 0 (real) and 1 (the test's) and the real scheduler on rank 2. Rank 1 answers the
// first request it gets with `reply(request)`, then waits for the failure notice. Returns the
// scheduler's error; checks that both workers heard it.
template <class B>
std::string scheduler_refuses(const std::function<void(net::Group&, const RoundRequest&)>& reply) {
  auto groups = B::make(3);
  const auto c = config();
  auto worker = std::async(std::launch::async, [&] {
    return gyre::test::job_failure([&] {
      runtime::Mailbox mailbox(*groups[0]);
      serve_rows(mailbox, rows(), response_offset(rows(), true), c, 2, 10s);
    });
  });
  auto scheduler = std::async(std::launch::async, [&] {
    return gyre::test::job_failure([&] {
      const PreparedData prepared = prepare(rows(), c);
      runtime::Mailbox mailbox(*groups[2]);
      run_lasso_scheduler(mailbox, {0, 1}, SchedulerData{rows(), prepared.columns, prepared.stats, {}}, c, {},
                          10s);
    });
  });
  auto first = groups[1]->receive(net::Clock::now() + 10s);
  REQUIRE(first);
  REQUIRE(first->type == kRoundRequest);
  reply(*groups[1], decode_request(*first, kFeatures));
  const std::string what = scheduler.get();
  CHECK(worker.get() == what);
  CHECK(notice(*groups[1]) == what);
  return what;
}

net::Message sums(std::uint64_t round, std::vector<double> values) { return encode_sums(RoundSums{round, std::move(values)}); }

// A kCheck round asks for every feature's sum, then two more.
constexpr std::size_t kCheckSums = kFeatures + 2;

}  // namespace

// As tests/lib/wire/channels_test.cpp checks the library's own message types.
TEST_CASE("the round messages lie in the registered lasso channel, at the numbers they always had") {
  static_assert(kRoundRequest == 0x20 && kRoundSums == 0x21);
  static_assert(holders(kRoundRequest) == 1 && holders(kRoundSums) == 1);
  bool registered = false;
  for (const channels::Channel& c : channels::kRegistry)
    registered = registered || (c.name == channels::kLasso.name && c.first == channels::kLasso.first &&
                                c.last == channels::kLasso.last);
  CHECK(registered);
  for (const std::uint16_t type : {static_cast<std::uint16_t>(kRoundRequest), static_cast<std::uint16_t>(kRoundSums)}) {
    CAPTURE(type);
    CHECK(channels::kLasso.contains(type));
    CHECK(holders(type) == 1);
  }
}

TEST_CASE_TEMPLATE("a worker refuses coordinates outside its columns and requests out of order or from a non-scheduler",
                   B, GYRE_TEST_BACKENDS) {
  SUBCASE("a step for a column past the last") {
    const auto what = worker_refuses<B>(2, 1, request(0, {{kFeatures, 0.5}}, {}));
    CHECK(what == "lasso worker 0: request from rank 1: step for feature 20 of 20");
  }
  SUBCASE("a sum asked for a column past the last") {
    const auto what = worker_refuses<B>(2, 1, request(0, {}, {3, 4000000000u}));
    CHECK(what == "lasso worker 0: request from rank 1: sum asked for feature 4000000000 of 20");
  }
  SUBCASE("a non-finite step") {
    const auto what = worker_refuses<B>(2, 1, request(0, {{2, std::numeric_limits<double>::quiet_NaN()}}, {}));
    CHECK(what == "lasso worker 0: request from rank 1: non-finite step for feature 2");
  }
  SUBCASE("a round out of order") {
    const auto what = worker_refuses<B>(2, 1, request(5, {}, {1}));
    CHECK(what == "lasso worker 0: request from rank 1: round 5 where round 0 comes next");
  }
  SUBCASE("a request from a rank that is not the scheduler") {
    const auto what = worker_refuses<B>(3, 1, request(0, {}, {1}));
    CHECK(what == "lasso worker 0: message type 32 from rank 1, not the scheduler");
  }
}

TEST_CASE_TEMPLATE("the scheduler refuses sums that are not finite, not asked for, or sent twice", B, GYRE_TEST_BACKENDS) {
  SUBCASE("not finite") {
    const auto what = scheduler_refuses<B>([](net::Group& g, const RoundRequest& r) {
      std::vector<double> values(kCheckSums, 1.0);
      values[3] = std::numeric_limits<double>::infinity();
      g.send(2, sums(r.round, values));
    });
    CHECK(what == "lasso scheduler: bad sums from rank 1: non-finite sum at index 3");
  }
  SUBCASE("of another length") {
    const auto what = scheduler_refuses<B>([](net::Group& g, const RoundRequest& r) {
      g.send(2, sums(r.round, std::vector<double>(kCheckSums + 1, 1.0)));
    });
    CHECK(what.find("lasso scheduler: bad sums from rank 1: round sums of 184 bytes, expected 22 values") == 0);
  }
  SUBCASE("for a round not asked for") {
    const auto what = scheduler_refuses<B>([](net::Group& g, const RoundRequest&) {
      g.send(2, sums(7, std::vector<double>(kCheckSums, 1.0)));
    });
    CHECK(what == "lasso scheduler: rank 1 sent sums for round 7, which has not been asked for");
  }
  SUBCASE("twice") {
    const auto what = scheduler_refuses<B>([](net::Group& g, const RoundRequest& r) {
      for (int i = 0; i < 2; ++i) g.send(2, sums(r.round, std::vector<double>(kCheckSums, 1.0)));
    });
    CHECK(what == "lasso scheduler: rank 1 sent sums for round 0 twice");
  }
}
