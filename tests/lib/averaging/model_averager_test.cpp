// tests/lib/averaging/model_averager_test.cpp — asynchronous model averaging: abort/resume, convergence, bad snapshots, failure.
#include <doctest/doctest.h>

#include <atomic>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "gyre/averaging/model_averager.hpp"
#include "lib/net/backends.hpp"

using namespace gyre;
using namespace std::chrono_literals;

namespace {

// Counts the averager's snapshots as they are handed to the transport: the inproc backend has
// no wire and tcp's byte count includes heartbeats, so this is the exact measure of silence.
class CountingGroup final : public net::Group {
 public:
  explicit CountingGroup(std::unique_ptr<net::Group> inner) : inner_(std::move(inner)) {
    for (int p = 0; p < inner_->size(); ++p) links_.push_back(std::make_unique<CountingLink>(inner_->link(p), sent_));
  }
  int rank() const noexcept override { return inner_->rank(); }
  int size() const noexcept override { return inner_->size(); }
  net::Link& link(int peer) override { return *links_.at(static_cast<std::size_t>(peer)); }
  std::optional<net::Message> receive(net::Clock::time_point deadline) override { return inner_->receive(deadline); }
  void close(const std::string& reason) override { inner_->close(reason); }
  std::uint64_t snapshots_sent() const { return sent_.load(); }

 private:
  class CountingLink final : public net::Link {
   public:
    CountingLink(net::Link& inner, std::atomic<std::uint64_t>& sent) : inner_(inner), sent_(sent) {}
    int peer() const noexcept override { return inner_.peer(); }
    void send(net::Message m) override {
      if (m.type == averaging::kAveragerMessage) ++sent_;
      inner_.send(std::move(m));
    }

   private:
    net::Link& inner_;
    std::atomic<std::uint64_t>& sent_;
  };

  std::unique_ptr<net::Group> inner_;
  std::atomic<std::uint64_t> sent_{0};
  std::vector<std::unique_ptr<CountingLink>> links_;
};

struct Worker {
  Worker(net::Group& group, std::vector<double> start) : inbox(group), model(std::move(start)) {}
  std::vector<double> read() {
    std::lock_guard lock(mutex);
    return model;
  }
  runtime::Mailbox inbox;
  std::mutex mutex;
  std::vector<double> model;
  std::unique_ptr<averaging::ModelAverager> averager;  // declared last: stops first
};

// n ranks of backend B, each with a model of `dim` values all equal to start(rank), and an
// averager over `members` (all ranks when empty) on the ranks in `running` (the members when
// empty).
template <class B>
struct Job {
  Job(int n, std::size_t dim, averaging::AveragerOptions options,
      const std::function<double(int)>& start = [](int r) { return static_cast<double>(r); },
      std::vector<int> members = {}, std::vector<int> running = {}) {
    if (members.empty())
      for (int r = 0; r < n; ++r) members.push_back(r);
    if (running.empty()) running = members;
    for (auto& g : B::make(n)) groups.push_back(std::make_unique<CountingGroup>(std::move(g)));
    for (int r = 0; r < n; ++r)
      workers.push_back(std::make_unique<Worker>(*groups[static_cast<std::size_t>(r)], std::vector<double>(dim, start(r))));
    for (int r : running) {
      auto& w = *workers[static_cast<std::size_t>(r)];
      w.averager = std::make_unique<averaging::ModelAverager>(w.inbox, members, std::span<double>(w.model), w.mutex,
                                                               options);
    }
  }
  averaging::ModelAverager& averager(int r) { return *workers[static_cast<std::size_t>(r)]->averager; }
  std::vector<std::unique_ptr<CountingGroup>> groups;
  std::vector<std::unique_ptr<Worker>> workers;  // after groups: destroyed before them
};

// Polls `done` until it holds or `limit` has passed; whether it held.
bool eventually(const std::function<bool()>& done, std::chrono::milliseconds limit = 2000ms) {
  const auto deadline = net::Clock::now() + limit;
  while (!done()) {
    if (net::Clock::now() > deadline) return false;
    std::this_thread::sleep_for(1ms);
  }
  return true;
}

double distance(const std::vector<double>& a, const std::vector<double>& b) {
  double s = 0;
  for (std::size_t i = 0; i < a.size(); ++i) s += (a[i] - b[i]) * (a[i] - b[i]);
  return std::sqrt(s);
}

constexpr auto kInterval = 5ms;

}  // namespace

TEST_CASE_TEMPLATE("abort silences a rank at once while its peers go on; resume restarts it", B, GYRE_TEST_BACKENDS) {
  Job<B> job(3, 4, {kInterval});
  REQUIRE(eventually([&] {
    for (auto& g : job.groups)
      if (g->snapshots_sent() < 3) return false;
    return true;
  }));
  auto& a0 = job.averager(0);
  const auto asked = net::Clock::now();
  a0.abort();
  // abort() waits only for a round or blend in progress (microseconds here); the bound leaves
  // room for a loaded machine.
  CHECK(net::Clock::now() - asked < 2 * kInterval);
  CHECK(a0.aborted());
  const auto wire = job.groups[0]->snapshots_sent();
  const auto before = a0.counters();
  const auto model = job.workers[0]->read();
  const auto peers_before = job.groups[1]->snapshots_sent() + job.groups[2]->snapshots_sent();

  std::this_thread::sleep_for(8 * kInterval);
  // The peers, not in lock-step with rank 0, go on averaging and offering to it; rank 0 drains
  // what they send and drops all of it.
  CHECK(eventually([&] { return a0.counters().received > before.received; }));
  const auto after = a0.counters();
  CHECK(job.groups[0]->snapshots_sent() == wire);
  CHECK(after.sent == before.sent);
  CHECK(after.sent == wire);
  CHECK(after.rounds == before.rounds);
  CHECK(after.blended == before.blended);
  CHECK(job.workers[0]->read() == model);  // an aborted averager leaves the model alone
  CHECK(job.groups[1]->snapshots_sent() + job.groups[2]->snapshots_sent() > peers_before);
  CHECK(after.dropped - before.dropped == after.received - before.received);

  a0.resume();
  CHECK_FALSE(a0.aborted());
  CHECK(eventually([&] { return job.groups[0]->snapshots_sent() > wire && a0.counters().blended > before.blended; }));
  CHECK(a0.counters().rounds > after.rounds);
  for (int r = 0; r < 3; ++r) CHECK_FALSE(job.averager(r).error());
}

TEST_CASE_TEMPLATE("snapshots that arrive while aborted are never blended after resume", B, GYRE_TEST_BACKENDS) {
  // A short timeout: the peers give up on their unanswered offers to rank 0 and offer again.
  Job<B> job(3, 4, {kInterval, 1, 10 * kInterval});
  auto& a0 = job.averager(0);
  a0.abort();
  // The averagers run from the job's start, so rank 0 may have blended before abort(); abort()
  // takes the lock every blend holds, so from here on it must blend nothing.
  const auto at_abort = a0.counters();
  REQUIRE(eventually([&] {
    return a0.counters().received >= at_abort.received + 4 && job.averager(1).counters().expired + job.averager(2).counters().expired > 0;
  }));
  job.averager(1).stop();
  job.averager(2).stop();
  // Wait until what the stopped peers sent last has come through and been dropped.
  std::uint64_t seen = 0;
  REQUIRE(eventually([&] {
    const auto now = a0.counters().received;
    if (now != seen) {
      seen = now;
      return false;
    }
    std::this_thread::sleep_for(4 * kInterval);
    return a0.counters().received == seen;
  }));
  const auto before = a0.counters();
  CHECK(before.blended == at_abort.blended);
  CHECK(before.dropped - at_abort.dropped == before.received - at_abort.received);
  const auto model = job.workers[0]->read();

  a0.resume();
  REQUIRE(eventually([&] { return a0.counters().rounds >= before.rounds + 5; }));
  const auto after = a0.counters();
  CHECK(after.sent > before.sent);  // running again, to peers that no longer answer
  CHECK(after.blended == at_abort.blended);
  CHECK(job.workers[0]->read() == model);
}

TEST_CASE_TEMPLATE("workers descending their own objectives without a barrier meet at the joint optimum", B,
                   GYRE_TEST_BACKENDS) {
  // Worker r minimises f_r(x) = ½‖x − c_r‖²; the minimiser of Σ f_r is the mean of the c_r.
  // Each step moves x towards c_r by 1 − e^(−λ·dt), dt the wall time since the worker's last
  // step: the pull per second is then the same for every worker whatever its speed (here they
  // differ on purpose), so the joint optimum is the plain mean.
  constexpr int n = 4;
  constexpr double lambda = 15.0;  // per second
  const std::vector<std::vector<double>> c{{3, -1.5, 2.5}, {-1, 0.5, 3.5}, {2, 1.5, 0}, {0, -2.5, 2}};
  std::vector<double> optimum(3, 0.0);
  for (const auto& ci : c)
    for (std::size_t i = 0; i < 3; ++i) optimum[i] += ci[i] / n;

  auto train = [&](Job<B>& job, std::chrono::milliseconds for_how_long) {
    const auto end = net::Clock::now() + for_how_long;
    std::vector<std::thread> trainers;
    for (int r = 0; r < n; ++r)
      trainers.emplace_back([&, r] {
        auto& w = *job.workers[static_cast<std::size_t>(r)];
        const auto& target = c[static_cast<std::size_t>(r)];
        auto last = net::Clock::now();
        while (last < end) {
          std::this_thread::sleep_for(std::chrono::microseconds(100 * (r + 1)));
          const auto now = net::Clock::now();
          const double step = 1.0 - std::exp(-lambda * std::chrono::duration<double>(now - last).count());
          last = now;
          std::lock_guard lock(w.mutex);
          for (std::size_t i = 0; i < w.model.size(); ++i) w.model[i] -= step * (w.model[i] - target[i]);
        }
      });
    for (auto& t : trainers) t.join();
  };

  SUBCASE("averaging") {
    Job<B> job(n, 3, {2ms}, [](int) { return 0.0; });
    train(job, 400ms);
    // Training is over; averaging goes on until the workers agree, and still agree on the same
    // point some rounds later: an exchange in flight carries mass the models do not show yet.
    auto models = [&] {
      std::vector<std::vector<double>> xs;
      for (auto& w : job.workers) xs.push_back(w->read());
      return xs;
    };
    auto agree = [](const std::vector<std::vector<double>>& xs) {
      for (const auto& x : xs)
        if (distance(x, xs[0]) > 1e-3) return false;
      return true;
    };
    const bool agreed = eventually([&] {
      const auto first = models();
      if (!agree(first)) return false;
      std::this_thread::sleep_for(20ms);
      const auto later = models();
      return agree(later) && distance(first[0], later[0]) < 1e-3;
    });
    CHECK(agreed);
    for (int r = 0; r < n; ++r) {
      CAPTURE(r);
      const auto x = job.workers[static_cast<std::size_t>(r)]->read();
      CHECK(distance(x, optimum) < 0.05);
      CHECK(job.averager(r).counters().blended > 0);
      CHECK_FALSE(job.averager(r).error());
    }
  }
  SUBCASE("averaging aborted") {
    Job<B> job(n, 3, {2ms}, [](int) { return 0.0; });
    for (int r = 0; r < n; ++r) job.averager(r).abort();
    train(job, 400ms);
    for (int r = 0; r < n; ++r) {
      CAPTURE(r);
      const auto x = job.workers[static_cast<std::size_t>(r)]->read();
      CHECK(distance(x, c[static_cast<std::size_t>(r)]) < 0.05);  // each at its own optimum
      CHECK(distance(x, optimum) > 1.0);
    }
  }
}

TEST_CASE_TEMPLATE("a malformed snapshot is refused naming its sender, and averaging goes on", B, GYRE_TEST_BACKENDS) {
  // Ranks 0 and 1 are the members, only rank 1 runs an averager; ranks 0 and 2 send by hand,
  // in the averager's wire format: meta = kind (1 offer, 2 answer) + exchange id, body = doubles.
  // (Rank 1's own offers to rank 0 go unanswered; as the higher rank it withdraws them when
  // rank 0's offers cross them.)
  constexpr std::size_t dim = 3;
  Job<B> job(3, dim, {kInterval}, [](int) { return 1.0; }, {0, 1}, {1});
  auto& a1 = job.averager(1);
  auto offer = [&](int from, std::vector<double> values, std::size_t bytes, std::size_t meta_bytes = 9) {
    net::Message m;
    m.type = averaging::kAveragerMessage;
    m.meta.assign(meta_bytes, std::byte{0});
    if (meta_bytes > 0) m.meta[0] = std::byte{1};
    if (meta_bytes == 9) m.meta[1] = std::byte{42};  // exchange 42 (little-endian)
    m.body = Buffer(bytes);
    if (const auto n = std::min(bytes, values.size() * sizeof(double)); n > 0) std::memcpy(m.body.data(), values.data(), n);
    job.groups[static_cast<std::size_t>(from)]->send(1, std::move(m));
  };
  auto refused = [&](std::uint64_t count, const char* sender, const char* reason) {
    REQUIRE(eventually([&] { return a1.counters().refused == count; }));
    const auto why = a1.last_refusal().value_or("");
    CAPTURE(why);
    CHECK(why.find(sender) != std::string::npos);
    CHECK(why.find(reason) != std::string::npos);
  };

  offer(0, {2, 2, 2}, 3);
  refused(1, "rank 0", "3 bytes");
  offer(0, {2, std::numeric_limits<double>::quiet_NaN(), 2}, dim * sizeof(double));
  refused(2, "rank 0", "non-finite value at index 1");
  offer(0, {2, 2, 2}, dim * sizeof(double), 4);
  refused(3, "rank 0", "malformed header");
  offer(2, {2, 2, 2}, dim * sizeof(double));
  refused(4, "rank 2", "not a peer");

  std::this_thread::sleep_for(3 * kInterval);
  CHECK(job.workers[1]->read() == std::vector<double>(dim, 1.0));
  CHECK(a1.counters().blended == 0);
  CHECK_FALSE(a1.error());

  // A sound offer is blended, and answered with the model as it was before.
  offer(0, {3, 3, 3}, dim * sizeof(double));
  REQUIRE(eventually([&] { return a1.counters().blended == 1; }));
  CHECK(job.workers[1]->read() == std::vector<double>(dim, 2.0));
  runtime::Mailbox inbox0(*job.groups[0]);
  auto answer = inbox0.receive(
      [](const net::Message& m) { return m.type == averaging::kAveragerMessage && m.meta.size() == 9 && m.meta[0] == std::byte{2}; },
      net::Clock::now() + 2s);
  REQUIRE(answer);
  CHECK(answer->meta[1] == std::byte{42});
  std::vector<double> answered(dim);
  REQUIRE(answer->body.size() == dim * sizeof(double));
  std::memcpy(answered.data(), answer->body.data(), answer->body.size());
  CHECK(answered == std::vector<double>(dim, 1.0));
  CHECK_NOTHROW(a1.stop());
}

TEST_CASE_TEMPLATE("a failed peer ends the averaging thread and stop() reports it", B, GYRE_TEST_BACKENDS) {
  Job<B> job(2, 4, {kInterval});
  REQUIRE(eventually([&] { return job.averager(0).counters().received > 0; }));
  job.groups[1]->close("rank 1 pulled the plug");
  REQUIRE(eventually([&] { return job.averager(0).error().has_value(); }));
  CHECK(job.averager(0).error()->find("rank 1") != std::string::npos);
  CHECK_THROWS_AS(job.averager(0).stop(), net::GroupClosed);
}

TEST_CASE("an averager refuses members that do not make sense") {
  auto groups = net::make_inproc_groups(3);
  runtime::Mailbox inbox(*groups[0]);
  std::mutex mutex;
  std::vector<double> model(2);
  auto make = [&](std::vector<int> members, averaging::AveragerOptions options = {}) {
    averaging::ModelAverager a(inbox, std::move(members), std::span<double>(model), mutex, options);
  };
  CHECK_THROWS_AS(make({1, 2}), std::invalid_argument);     // not including this rank
  CHECK_THROWS_AS(make({0, 1, 1}), std::invalid_argument);  // a rank twice
  CHECK_THROWS_AS(make({0, 3}), std::invalid_argument);     // outside the group
  CHECK_THROWS_AS(make({0, 1}, {0ms}), std::invalid_argument);
  CHECK_NOTHROW(make({0}));  // alone: rounds with nobody to talk to
}

TEST_CASE_TEMPLATE("round_soon() starts an exchange at once, whatever the interval, even while the model is held", B,
                   GYRE_TEST_BACKENDS) {
  averaging::AveragerOptions options;
  options.interval = std::chrono::hours(1);  // no round would come by itself
  Job<B> job(2, 4, options);
  {
    // A trainer asks while holding the model's mutex, which a round takes too: no deadlock.
    std::lock_guard hold(job.workers[0]->mutex);
    job.averager(0).round_soon();
  }
  CHECK(eventually([&] { return job.averager(0).counters().blended >= 1; }));
  // One exchange moved both to the middle: the sum 0·4 + 1·4 is kept, each now near 0.5.
  CHECK(job.workers[0]->read()[0] == doctest::Approx(0.5));
  CHECK(job.workers[1]->read()[0] == doctest::Approx(0.5));
  CHECK(job.averager(1).counters().rounds == 0);
}

TEST_CASE_TEMPLATE("wait_blended() returns once the count is reached, at its deadline when nobody answers, at once when ended",
                   B, GYRE_TEST_BACKENDS) {
  averaging::AveragerOptions options;
  options.interval = std::chrono::hours(1);  // only round_soon() starts rounds
  Job<B> job(3, 4, options, [](int r) { return static_cast<double>(r); }, {0, 1, 2}, {0, 1});
  auto& a = job.averager(0);
  // Already reached: no wait at all.
  CHECK(a.wait_blended(0, net::Clock::now()));
  // Rank 0's rounds go to its peers in turn; rank 1 answers, rank 2 runs no averager. Two
  // exchanges asked for: the first (to rank 1) is blended, so the wait for one returns true.
  a.round_soon();
  CHECK(a.wait_blended(1, net::Clock::now() + 5s));
  CHECK(a.counters().blended >= 1);
  // The next round goes to the silent rank 2: a wait for one more ends at its deadline, false,
  // and not long before it.
  a.round_soon();
  const auto before = a.counters().blended;
  const auto asked = net::Clock::now();
  CHECK_FALSE(a.wait_blended(before + 1, asked + 200ms));
  CHECK(net::Clock::now() - asked >= 200ms);
  // Once the thread has ended, a wait returns false at once, whatever its deadline.
  a.stop();
  const auto stopped = net::Clock::now();
  CHECK_FALSE(a.wait_blended(a.counters().blended + 1, stopped + std::chrono::hours(1)));
  CHECK(net::Clock::now() - stopped < 5s);
}
