// tests/lib/rounds/rounds_engine_test.cpp — the rounds engine on a toy app (coordinate descent on a least-squares quadratic): optimum, bits, failures.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <future>
#include <limits>

#include "gyre/rounds/rounds.hpp"
#include "gyre/rounds/rounds_protocol.hpp"
#include "gyre/wire/channels.hpp"
#include "lib/net/backends.hpp"
#include "support/channel_holders.hpp"
#include "support/float_checks.hpp"
#include "support/job_failure.hpp"

using namespace gyre;
using namespace gyre::rounds;
using namespace std::chrono_literals;
using gyre::test::channel_holders;
using gyre::test::same_bits;

namespace {

constexpr std::uint32_t kParams = 8;
constexpr std::uint32_t kRows = 240;
constexpr std::uint8_t kPartialSums = 0, kCheck = 1;

// M's entries and y, the same on every platform (no std distribution): uniform in [−1, 1).
double entry(std::uint64_t i, std::uint64_t j) {
  std::uint64_t z = (i * 0x9E3779B97F4A7C15ULL) ^ (j + 0xBF58476D1CE4E5B9ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  z ^= z >> 31;
  return static_cast<double>(z >> 11) / static_cast<double>(1ULL << 52) - 1.0;
}
double response(std::uint64_t i) { return entry(i, 1000); }

// f(x) = ‖y − Mx‖²/2, a positive-definite quadratic. Worker w holds the rows i ≡ w (mod P)
// and its part of the residual r = y − Mx.
struct QuadraticShard {
  std::vector<std::uint32_t> rows;
  std::vector<double> residual;

  QuadraticShard(int worker, int workers) {
    for (std::uint32_t i = static_cast<std::uint32_t>(worker); i < kRows; i += static_cast<std::uint32_t>(workers)) {
      rows.push_back(i);
      residual.push_back(response(i));
    }
  }
  void apply(std::span<const Step> steps) {
    for (const Step& s : steps)
      for (std::size_t k = 0; k < rows.size(); ++k) residual[k] -= entry(rows[k], s.param) * s.delta;
  }
  // Partial sums: (Mᵀr)_j for the task's j; a check: every (Mᵀr)_j, then ‖r‖².
  std::vector<double> push(const Task& task) {
    std::vector<std::uint32_t> all(kParams);
    for (std::uint32_t j = 0; j < kParams; ++j) all[j] = j;
    const auto& params = task.kind == kCheck ? all : task.params;
    std::vector<double> out(params.size(), 0.0);
    for (std::size_t f = 0; f < params.size(); ++f)
      for (std::size_t k = 0; k < rows.size(); ++k) out[f] += entry(rows[k], params[f]) * residual[k];
    if (task.kind == kCheck) {
      double rss = 0;
      for (double r : residual) rss += r * r;
      out.push_back(rss);
    }
    return out;
  }
};

// Cyclic coordinate descent, two coordinates a round (Jacobi steps from stale sums), an exact
// check every two sweeps; stops when the gradient vanishes.
struct QuadraticApp {
  int rounds_in_flight = 1;
  std::vector<double> x = std::vector<double>(kParams, 0.0);
  std::vector<double> curvature = std::vector<double>(kParams, 0.0);  // ‖M_j‖²
  std::uint32_t cursor = 0, since_check = 0, checks = 0;
  double gradient_norm = std::numeric_limits<double>::infinity();
  bool done = false;

  explicit QuadraticApp(int depth) : rounds_in_flight(depth) {
    for (std::uint32_t j = 0; j < kParams; ++j)
      for (std::uint32_t i = 0; i < kRows; ++i) curvature[j] += entry(i, j) * entry(i, j);
  }
  int depth() const { return rounds_in_flight; }
  Next schedule() {
    if (done) return Next::stop();
    if (since_check >= 2 * kParams) return Next::check();
    Task t{kPartialSums, 0.0, {cursor, (cursor + 1) % kParams}};
    cursor = (cursor + 2) % kParams;
    since_check += 2;
    return Next::send(std::move(t));
  }
  Task check_task() { return Task{kCheck, 0.0, {}}; }
  std::size_t partial_size(const Task& t) const { return t.kind == kCheck ? kParams + 1 : t.params.size(); }
  std::vector<Step> pull(const Task& t, std::span<const double> sums) {
    std::vector<Step> steps;
    if (t.kind == kCheck) {
      since_check = 0;
      gradient_norm = 0;
      for (std::uint32_t j = 0; j < kParams; ++j) gradient_norm = std::max(gradient_norm, std::abs(sums[j]));
      done = gradient_norm < 1e-11 || ++checks == 400;
      return steps;
    }
    for (std::size_t f = 0; f < t.params.size(); ++f) {
      const double delta = sums[f] / curvature[t.params[f]];
      x[t.params[f]] += delta;
      steps.push_back({t.params[f], delta});
    }
    return steps;
  }
};
static_assert(RoundsApp<QuadraticApp>);
static_assert(rounds::RoundsShard<QuadraticShard>);

RoundsOptions quadratic_options() {
  RoundsOptions o;
  o.name = "quadratic";
  o.limits = RoundsLimits{kParams, 2};
  o.timeout = 20s;
  return o;
}

QuadraticApp solve_quadratic(runtime::Backend backend, int workers, int depth,
                             std::map<int, net::FaultSpec> faults = {}) {
  QuadraticApp app(depth);
  runtime::Job job = rounds::rounds_job(workers, std::move(backend));
  job.faults = std::move(faults);
  rounds::run_rounds_job(
      job, quadratic_options(), [&](int rank) { return QuadraticShard(rank, workers); },
      [&](RoundsDriver& driver) { run_rounds(driver, app); });
  return app;
}

// The normal equations MᵀM x = Mᵀy, by Gaussian elimination with partial pivoting.
std::vector<double> exact_optimum() {
  std::vector<std::vector<double>> a(kParams, std::vector<double>(kParams + 1, 0.0));
  for (std::uint32_t i = 0; i < kRows; ++i)
    for (std::uint32_t j = 0; j < kParams; ++j) {
      for (std::uint32_t k = 0; k < kParams; ++k) a[j][k] += entry(i, j) * entry(i, k);
      a[j][kParams] += entry(i, j) * response(i);
    }
  for (std::uint32_t c = 0; c < kParams; ++c) {
    std::uint32_t pivot = c;
    for (std::uint32_t r = c + 1; r < kParams; ++r)
      if (std::abs(a[r][c]) > std::abs(a[pivot][c])) pivot = r;
    std::swap(a[c], a[pivot]);
    for (std::uint32_t r = 0; r < kParams; ++r) {
      if (r == c) continue;
      const double f = a[r][c] / a[c][c];
      for (std::uint32_t k = c; k <= kParams; ++k) a[r][k] -= f * a[c][k];
    }
  }
  std::vector<double> x(kParams);
  for (std::uint32_t j = 0; j < kParams; ++j) x[j] = a[j][kParams] / a[j][j];
  return x;
}

// The failure notice `group` is sent within 10 s ("" if none).
std::string notice(net::Group& group) {
  const auto deadline = net::Clock::now() + 10s;
  while (auto m = group.receive(deadline))
    if (runtime::is_failure_notice(*m)) return runtime::read_failure(*m).what();
  return "";
}

// A real worker on rank 0 of `ranks`, the driver's rank being the last; rank `from` sends it
// `bad`. Returns the worker's error, and checks that the driver's rank was told it.
template <class B>
std::string worker_refuses(int ranks, int from, net::Message bad) {
  auto groups = B::make(ranks);
  const int driver_rank = ranks - 1;
  auto worker = std::async(std::launch::async, [&] {
    return gyre::test::job_failure([&] {
      runtime::Mailbox mailbox(*groups[0]);
      QuadraticShard shard(0, 1);
      rounds::serve_rounds(mailbox, driver_rank, quadratic_options(), shard);
    });
  });
  groups[static_cast<std::size_t>(from)]->send(0, std::move(bad));
  const std::string what = worker.get();
  CHECK(notice(*groups[static_cast<std::size_t>(driver_rank)]) == what);
  return what;
}

net::Message request(std::uint64_t round, std::vector<Step> updates, std::vector<std::uint32_t> params,
                     std::uint8_t kind = kPartialSums) {
  RoundRequest r;
  r.round = round;
  r.task = Task{kind, 0.0, std::move(params)};
  r.updates = std::move(updates);
  return encode_request(r);
}

// Workers 0 (real) and 1 (the test's) and the real driver on rank 2. Rank 1 answers the first
// request it gets with `reply(request)`, then waits for the failure notice. Returns the
// driver's error; checks that both workers heard it.
template <class B>
std::string driver_refuses(const std::function<void(net::Group&, const RoundRequest&)>& reply) {
  auto groups = B::make(3);
  auto worker = std::async(std::launch::async, [&] {
    return gyre::test::job_failure([&] {
      runtime::Mailbox mailbox(*groups[0]);
      QuadraticShard shard(0, 2);
      rounds::serve_rounds(mailbox, 2, quadratic_options(), shard);
    });
  });
  auto driver = std::async(std::launch::async, [&] {
    return gyre::test::job_failure([&] {
      runtime::Mailbox mailbox(*groups[2]);
      RoundsDriver d(mailbox, {0, 1}, quadratic_options());
      QuadraticApp app(2);
      run_rounds(d, app);
    });
  });
  auto first = groups[1]->receive(net::Clock::now() + 10s);
  REQUIRE(first);
  REQUIRE(first->type == kRoundTask);
  reply(*groups[1], decode_request(*first, quadratic_options().limits));
  const std::string what = driver.get();
  CHECK(worker.get() == what);
  CHECK(notice(*groups[1]) == what);
  return what;
}

net::Message partial(std::uint64_t round, std::vector<double> values) {
  return encode_partial(RoundPartial{round, std::move(values)});
}

}  // namespace

TEST_CASE("the rounds reach the quadratic's optimum with the same bits on every backend, for depth 1, 2 and 4") {
  const std::vector<double> optimum = exact_optimum();
  for (int depth : {1, 2, 4}) {
    CAPTURE(depth);
    const QuadraticApp threads = solve_quadratic(runtime::ThreadsBackend{}, 3, depth);
    CHECK(threads.gradient_norm < 1e-11);
    for (std::uint32_t j = 0; j < kParams; ++j) CHECK(threads.x[j] == doctest::Approx(optimum[j]).epsilon(1e-9));
    const QuadraticApp again = solve_quadratic(runtime::ThreadsBackend{}, 3, depth);
    CHECK(same_bits(threads.x, again.x));
    const QuadraticApp tcp = solve_quadratic(gyre_test::TcpBackend::runtime_backend(), 3, depth);
    CHECK(same_bits(threads.x, tcp.x));
    CHECK(threads.checks == tcp.checks);
  }
}

TEST_CASE("the round messages lie in the registered rounds channel, at the numbers Lasso's rounds always had") {
  static_assert(kRoundTask == 0x20 && kRoundPartial == 0x21 && kRoundsStop == 0x22);
  bool registered = false;
  for (const wire::channels::Channel& c : wire::channels::kRegistry)
    registered = registered || (c.name == wire::channels::kRounds.name && c.first == wire::channels::kRounds.first &&
                                c.last == wire::channels::kRounds.last);
  CHECK(registered);
  for (const std::uint16_t type : {static_cast<std::uint16_t>(kRoundTask), static_cast<std::uint16_t>(kRoundPartial),
                                   static_cast<std::uint16_t>(kRoundsStop), static_cast<std::uint16_t>(kRoundQuery),
                                   static_cast<std::uint16_t>(kQueryAnswer)}) {
    CAPTURE(type);
    CHECK(wire::channels::kRounds.contains(type));
    CHECK(channel_holders(type) == 1);
  }
}

TEST_CASE_TEMPLATE("a worker whose links die stops the rounds with an error naming it", B, GYRE_TEST_BACKENDS) {
  net::FaultSpec faults;
  faults.close_after = 5;
  std::string what;
  try {
    solve_quadratic(B::runtime_backend(), 3, 2, {{1, faults}});
  } catch (const runtime::JobFailed& e) {
    what = e.what();
  }
  CAPTURE(what);
  CHECK((what.find("worker 1") != std::string::npos || what.find("rank 1") != std::string::npos));
}

TEST_CASE_TEMPLATE("a worker refuses ids outside the job and requests out of order or from a non-scheduler", B,
                   GYRE_TEST_BACKENDS) {
  SUBCASE("an update of a parameter past the last") {
    const auto what = worker_refuses<B>(2, 1, request(0, {{kParams, 0.5}}, {}));
    CHECK(what == "quadratic worker 0: request from rank 1: update of parameter 8 of 8");
  }
  SUBCASE("a task naming a parameter past the last") {
    const auto what = worker_refuses<B>(2, 1, request(0, {}, {3, 4000000000u}));
    CHECK(what == "quadratic worker 0: request from rank 1: task names parameter 4000000000 of 8");
  }
  SUBCASE("a non-finite update") {
    const auto what = worker_refuses<B>(2, 1, request(0, {{2, std::numeric_limits<double>::quiet_NaN()}}, {}));
    CHECK(what == "quadratic worker 0: request from rank 1: non-finite update of parameter 2");
  }
  SUBCASE("a kind the app does not have") {
    const auto what = worker_refuses<B>(2, 1, request(0, {}, {1}, 7));
    CHECK(what == "quadratic worker 0: request from rank 1: round task of kind 7, the app has 2");
  }
  SUBCASE("a round out of order") {
    const auto what = worker_refuses<B>(2, 1, request(5, {}, {1}));
    CHECK(what == "quadratic worker 0: request from rank 1: round 5 where round 0 comes next");
  }
  SUBCASE("a request from a rank that is not the scheduler") {
    const auto what = worker_refuses<B>(3, 1, request(0, {}, {1}));
    CHECK(what == "quadratic worker 0: message type 32 from rank 1, not the scheduler");
  }
}

TEST_CASE_TEMPLATE("the scheduler refuses partials that are not finite, not asked for, or sent twice", B,
                   GYRE_TEST_BACKENDS) {
  // The app's first round asks for two coordinates' sums.
  SUBCASE("not finite") {
    const auto what = driver_refuses<B>([](net::Group& g, const RoundRequest& r) {
      g.send(2, partial(r.round, {1.0, std::numeric_limits<double>::infinity()}));
    });
    CHECK(what == "quadratic scheduler: bad partial from rank 1: non-finite value at index 1");
  }
  SUBCASE("of another length") {
    const auto what = driver_refuses<B>([](net::Group& g, const RoundRequest& r) {
      g.send(2, partial(r.round, std::vector<double>(3, 1.0)));
    });
    CHECK(what == "quadratic scheduler: bad partial from rank 1: round partial of 24 bytes, expected 2 values");
  }
  SUBCASE("for a round not asked for") {
    const auto what = driver_refuses<B>([](net::Group& g, const RoundRequest&) {
      g.send(2, partial(7, std::vector<double>(2, 1.0)));
    });
    CHECK(what == "quadratic scheduler: rank 1 sent a partial for round 7, which has not been asked for");
  }
  SUBCASE("twice") {
    const auto what = driver_refuses<B>([](net::Group& g, const RoundRequest& r) {
      for (int i = 0; i < 2; ++i) g.send(2, partial(r.round, std::vector<double>(2, 1.0)));
    });
    CHECK(what == "quadratic scheduler: rank 1 sent a partial for round 0 twice");
  }
  SUBCASE("of another type") {
    const auto what = driver_refuses<B>([](net::Group& g, const RoundRequest&) {
      net::Message m;
      m.type = kRoundTask;
      g.send(2, std::move(m));
    });
    CHECK(what == "quadratic scheduler: unexpected message type 32 from rank 1");
  }
}

namespace {
// A worker's answer to a query: its rank, then the task's ids (as numbers), then the shard's
// residual sum — state no step changes would leave alone, so the test sees when it was taken.
std::vector<double> answer_of(int rank, const QuadraticShard& shard, const Task& task) {
  std::vector<double> out{static_cast<double>(rank)};
  for (const std::uint32_t j : task.params) out.push_back(j);
  double sum = 0;
  for (const double r : shard.residual) sum += r;
  out.push_back(sum);
  return out;
}
}  // namespace

TEST_CASE_TEMPLATE("a query is answered by every worker between rounds, in worker order, and the rounds go on", B,
                   GYRE_TEST_BACKENDS) {
  auto groups = B::make(3);
  std::vector<std::future<void>> workers;
  for (int w = 0; w < 2; ++w)
    workers.push_back(std::async(std::launch::async, [&, w] {
      runtime::Mailbox mailbox(*groups[static_cast<std::size_t>(w)]);
      QuadraticShard shard(w, 2);
      rounds::serve_rounds(
          mailbox, 2, quadratic_options(), [&](std::span<const Step> steps) { shard.apply(steps); },
          [&](const Task& task) { return shard.push(task); },
          [&](const Task& task) { return answer_of(w, shard, task); });
    }));
  runtime::Mailbox mailbox(*groups[2]);
  RoundsDriver d(mailbox, {0, 1}, quadratic_options());
  // Two rounds in flight, then two questions: the answers come back whole, in worker order, and
  // the rounds' partials that arrived meanwhile are still folded in order.
  d.send(Task{kPartialSums, 0, {1, 2}}, 2);
  d.send(Task{kPartialSums, 0, {3}}, 1);
  for (int q = 0; q < 2; ++q) {
    const auto answers = d.ask(Task{kPartialSums, 0, {5, static_cast<std::uint32_t>(6 + q)}}, 8);
    REQUIRE(answers.size() == 2);
    for (int w = 0; w < 2; ++w) {
      CAPTURE(w);
      REQUIRE(answers[static_cast<std::size_t>(w)].size() == 4);
      CHECK(answers[static_cast<std::size_t>(w)][0] == w);
      CHECK(answers[static_cast<std::size_t>(w)][2] == 6 + q);
    }
  }
  const auto first = d.receive_oldest();
  CHECK(first.round == 0);
  CHECK(first.values.size() == 2);
  const auto second = d.receive_oldest();
  CHECK(second.round == 1);
  CHECK(second.values.size() == 1);
  d.stop();
  for (auto& w : workers) w.get();
}

TEST_CASE_TEMPLATE("a worker without answers refuses a query; the scheduler refuses answers out of turn", B,
                   GYRE_TEST_BACKENDS) {
  SUBCASE("a worker that answers no query") {
    const auto what = worker_refuses<B>(2, 1, encode_query(0, Task{kPartialSums, 0, {1}}));
    CHECK(what == "quadratic worker 0: unexpected message type 35 from rank 1");
  }
  // Rank 1 is the test's worker; the driver on rank 2 asks one question of ranks 0 and 1.
  const auto refused = [](const std::function<void(net::Group&, std::uint64_t)>& reply) {
    auto groups = B::make(3);
    auto worker = std::async(std::launch::async, [&] {
      return gyre::test::job_failure([&] {
        runtime::Mailbox mailbox(*groups[0]);
        QuadraticShard shard(0, 2);
        rounds::serve_rounds(
            mailbox, 2, quadratic_options(), [&](std::span<const Step> steps) { shard.apply(steps); },
            [&](const Task& task) { return shard.push(task); },
            [&](const Task& task) { return answer_of(0, shard, task); });
      });
    });
    auto driver = std::async(std::launch::async, [&] {
      return gyre::test::job_failure([&] {
        runtime::Mailbox mailbox(*groups[2]);
        RoundsDriver d(mailbox, {0, 1}, quadratic_options());
        // A second question: a duplicate that comes after the first is whole is caught there.
        for (int q = 0; q < 2; ++q) (void)d.ask(Task{kPartialSums, 0, {4}}, 3);
        FAIL("the driver took the answers");
      });
    });
    auto query = groups[1]->receive(net::Clock::now() + 10s);
    REQUIRE(query);
    REQUIRE(query->type == kRoundQuery);
    reply(*groups[1], query->tag);
    const std::string what = driver.get();
    CHECK(worker.get() == what);
    return what;
  };
  SUBCASE("an answer to a query not asked") {
    CHECK(refused([](net::Group& g, std::uint64_t number) {
            g.send(2, encode_answer(RoundPartial{number + 1, {1.0}}));
          }) == "quadratic scheduler: rank 1 answered query 1, which is not open");
  }
  SUBCASE("an answer twice") {
    // Caught while the first question waits for rank 0, or once the second one is open.
    const auto what = refused([](net::Group& g, std::uint64_t number) {
      for (int i = 0; i < 2; ++i) g.send(2, encode_answer(RoundPartial{number, {1.0}}));
    });
    CHECK((what == "quadratic scheduler: rank 1 answered query 0 twice" ||
           what == "quadratic scheduler: rank 1 answered query 0, which is not open"));
  }
  SUBCASE("an answer longer than asked") {
    CHECK(refused([](net::Group& g, std::uint64_t number) {
            g.send(2, encode_answer(RoundPartial{number, std::vector<double>(4, 1.0)}));
          }) == "quadratic scheduler: rank 1's answer to query 0: query answer of 32 bytes for 4 values, at most 3 allowed");
  }
  SUBCASE("an answer that is not finite") {
    CHECK(refused([](net::Group& g, std::uint64_t number) {
            g.send(2, encode_answer(RoundPartial{number, {std::numeric_limits<double>::quiet_NaN()}}));
          }) == "quadratic scheduler: rank 1's answer to query 0: non-finite value at index 0");
  }
}

TEST_CASE("an app that throws fails the job on every member, with the app's text") {
  struct Throwing : QuadraticApp {
    Throwing() : QuadraticApp(2) {}
    std::vector<Step> pull(const Task&, std::span<const double>) { throw std::runtime_error("the sums make no sense"); }
  };
  Throwing app;
  std::string what;
  try {
    rounds::run_rounds_job(
        rounds::rounds_job(2, runtime::ThreadsBackend{}), quadratic_options(), [](int rank) { return QuadraticShard(rank, 2); },
        [&](RoundsDriver& driver) { run_rounds(driver, app); });
  } catch (const runtime::JobFailed& e) {
    what = e.what();
  }
  CHECK(what == "quadratic scheduler: the sums make no sense");
}
