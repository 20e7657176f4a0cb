// tests/lib/locks/lock_service_test.cpp — the lock service and its clients on every backend: exclusion, fairness, failures.
#include <doctest/doctest.h>

#include <atomic>
#include <functional>
#include <future>
#include <memory>
#include <random>
#include <thread>
#include <vector>

#include "gyre/locks/lock_client.hpp"
#include "gyre/locks/lock_service.hpp"
#include "gyre/net/group.hpp"
#include "gyre/rotation/rotation_driver.hpp"
#include "gyre/wire/codec.hpp"
#include "lib/net/backends.hpp"

using namespace gyre;
using namespace gyre::locks;
using namespace std::chrono_literals;
using Keys = std::vector<LockKey>;
using runtime::JobFailed;

namespace {

using Groups = std::vector<std::unique_ptr<net::Group>>;

// Rank 0 serves, ranks 1..workers are clients. A job failure ends any wait on a mailbox.
template <class Backend>
struct LockJob {
  LockJob(int workers, std::uint32_t keys, LockServiceOptions options = {20s, 20s},
          const std::function<void(Groups&)>& wrap = {})
      : groups(Backend::make(workers + 1)) {
    if (wrap) wrap(groups);
    start(workers, [&](std::vector<int> ranks) { return std::make_unique<LockService>(*inboxes[0], ranks, keys, options); });
  }
  // Keys that guard `values`.
  LockJob(int workers, std::vector<Buffer> values) : groups(Backend::make(workers + 1)) {
    start(workers, [&](std::vector<int> ranks) {
      return std::make_unique<LockService>(*inboxes[0], ranks, std::move(values), LockServiceOptions{20s, 20s});
    });
  }
  void start(int workers, const std::function<std::unique_ptr<LockService>(std::vector<int>)>& make_service) {
    for (auto& g : groups)
      inboxes.push_back(std::make_unique<runtime::Mailbox>(*g));
    std::vector<int> ranks;
    for (int r = 1; r <= workers; ++r) ranks.push_back(r);
    service = make_service(ranks);
    for (int r = 1; r <= workers; ++r)
      clients.push_back(std::make_unique<LockClient>(*inboxes[static_cast<std::size_t>(r)], 0, LockClientOptions{20s}));
  }
  LockClient& client(int rank) { return *clients[static_cast<std::size_t>(rank - 1)]; }
  std::future<LockStats> serve() {
    return std::async(std::launch::async, [this] { return service->run(); });
  }
  // Blocks until `n` requests wait at the service (bounded, so a broken service fails the test).
  void await_waiting(std::size_t n) {
    const auto deadline = net::Clock::now() + 10s;
    while (service->stats().waiting != n && net::Clock::now() < deadline) std::this_thread::sleep_for(1ms);
    REQUIRE(service->stats().waiting == n);
  }

  Groups groups;
  std::vector<std::unique_ptr<runtime::Mailbox>> inboxes;
  std::unique_ptr<LockService> service;
  std::vector<std::unique_ptr<LockClient>> clients;
};

}  // namespace

TEST_CASE_TEMPLATE("never two holders of one key, and every request is eventually granted", B, GYRE_TEST_BACKENDS) {
  constexpr int kWorkers = 4;
  constexpr LockKey kKeys = 6;
  constexpr int kCycles = 150;
  LockJob<B> job(kWorkers, kKeys);
  std::vector<std::atomic<int>> holders(kKeys);
  std::atomic<int> max_seen{0};
  std::atomic<std::uint64_t> granted{0};
  auto served = job.serve();

  auto work = [&](int rank) {
    LockClient& client = job.client(rank);
    std::mt19937 rng(static_cast<unsigned>(rank));
    auto pick = [&](std::size_t n) {
      Keys all{0, 1, 2, 3, 4, 5};
      std::shuffle(all.begin(), all.end(), rng);
      return Keys(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(n));
    };
    for (int cycle = 0; cycle < kCycles; ++cycle) {
      LockGrant grant;
      const auto kind = rng() % 3;
      if (kind == 0) {
        const Keys keys = pick(1 + rng() % 3);
        grant = client.acquire(keys);
        REQUIRE(grant.keys == keys);
      } else if (kind == 1) {
        const Keys candidates = pick(2 + rng() % 5);
        grant = client.acquire_any(candidates, 1 + static_cast<std::uint32_t>(rng() % 2));
      } else {
        // "None free now" is an answer, not a grant: ask again until one is granted.
        const Keys candidates = pick(1 + rng() % 3);
        for (int attempt = 0; attempt < 100000 && grant.status != LockStatus::kGranted; ++attempt) {
          grant = client.acquire_any(candidates, 1, LockWait::kNoWait);
          if (!grant) std::this_thread::sleep_for(20us);
        }
      }
      REQUIRE(grant.status == LockStatus::kGranted);
      ++granted;
      for (LockKey k : grant.keys) {
        const int now_holding = ++holders[k];
        int seen = max_seen.load();
        while (now_holding > seen && !max_seen.compare_exchange_weak(seen, now_holding)) {
        }
      }
      std::this_thread::sleep_for(std::chrono::microseconds(rng() % 200));
      for (LockKey k : grant.keys) --holders[k];
      if (cycle % 2 == 0) {
        client.release(grant.keys);
      } else {
        LockGuard guard(client, std::move(grant));  // released at the end of the scope
        CHECK(guard);
      }
    }
    client.finish();
  };
  std::vector<std::future<void>> running;
  for (int r = 1; r <= kWorkers; ++r) running.push_back(std::async(std::launch::async, work, r));
  for (auto& f : running) f.get();
  const LockStats stats = served.get();

  CHECK(max_seen.load() == 1);
  CHECK(granted.load() == static_cast<std::uint64_t>(kWorkers * kCycles));
  CHECK(stats.grants == granted.load());
  CHECK(stats.waits + stats.refusals > 0);  // the workers did contend
  CHECK(stats.max_queue <= static_cast<std::size_t>(kWorkers));
  CHECK(stats.waiting == 0);
}

TEST_CASE_TEMPLATE("a multi-key acquire is granted all at once, after the key it waited for", B, GYRE_TEST_BACKENDS) {
  LockJob<B> job(3, 4);
  auto served = job.serve();
  REQUIRE(job.client(1).acquire(Keys{1}));
  auto waiter = std::async(std::launch::async, [&] { return job.client(2).acquire(Keys{0, 1, 2}); });
  job.await_waiting(1);
  // Keys 0 and 2 are free, but the waiter asked first: nobody else may take them meanwhile.
  CHECK(job.client(3).acquire(Keys{2}, LockWait::kNoWait).status == LockStatus::kNoneFree);
  job.client(1).release(Keys{1});
  const LockGrant grant = waiter.get();
  CHECK(grant.status == LockStatus::kGranted);
  CHECK(grant.keys == Keys{0, 1, 2});
  job.client(2).release(grant.keys);
  for (int r = 1; r <= 3; ++r) job.client(r).finish();
  const LockStats stats = served.get();
  CHECK(stats.grants == 2);
  CHECK(stats.waits == 1);
  CHECK(stats.refusals == 1);
}

TEST_CASE_TEMPLATE("acquire_any grants only free candidates, or waits for one to free", B, GYRE_TEST_BACKENDS) {
  LockJob<B> job(3, 6);
  auto served = job.serve();
  REQUIRE(job.client(1).acquire(Keys{0, 2}));
  const LockGrant two = job.client(2).acquire_any(Keys{0, 1, 2, 3}, 2, LockWait::kNoWait);
  CHECK(two.status == LockStatus::kGranted);
  CHECK(two.keys == Keys{1, 3});
  CHECK(job.client(3).acquire_any(Keys{0, 2}, 1, LockWait::kNoWait).status == LockStatus::kNoneFree);
  auto waiter = std::async(std::launch::async, [&] { return job.client(3).acquire_any(Keys{0, 1, 2}); });
  job.await_waiting(1);
  job.client(1).release(Keys{2});
  const LockGrant one = waiter.get();
  CHECK(one.keys == Keys{2});
  job.client(1).release(Keys{0});
  job.client(2).release(two.keys);
  job.client(3).release(one.keys);
  for (int r = 1; r <= 3; ++r) job.client(r).finish();
  const LockStats stats = served.get();
  CHECK(stats.grants == 3);
  CHECK(stats.refusals == 1);
  CHECK(stats.waits == 1);
}

TEST_CASE_TEMPLATE("releasing a key one does not hold fails the job naming the rank", B, GYRE_TEST_BACKENDS) {
  LockJob<B> job(3, 6);
  auto served = job.serve();
  REQUIRE(job.client(3).acquire(Keys{0}));
  auto waiter = std::async(std::launch::async, [&] { return job.client(1).acquire(Keys{0}); });
  job.await_waiting(1);
  job.client(2).release(Keys{4});
  CHECK_THROWS_WITH_AS(served.get(), doctest::Contains("rank 2 released key 4, which nobody holds"), JobFailed);
  // The waiter is told, not granted; so is the offender at its next call.
  CHECK_THROWS_WITH_AS(waiter.get(), doctest::Contains("rank 2 released key 4"), JobFailed);
  CHECK_THROWS_WITH_AS(job.client(2).finish(), doctest::Contains("rank 2 released key 4"), JobFailed);
}

namespace {

std::vector<Buffer> counters(std::size_t keys) {
  std::vector<Buffer> values;
  for (std::size_t k = 0; k < keys; ++k) values.emplace_back(sizeof(std::uint64_t));  // zeroed
  return values;
}

std::uint64_t& counter(Buffer& value) { return *reinterpret_cast<std::uint64_t*>(value.data()); }

}  // namespace

TEST_CASE_TEMPLATE("keys that guard values: a grant carries what the last holder handed back, so no update is lost", B,
                   GYRE_TEST_BACKENDS) {
  constexpr int kWorkers = 3;
  constexpr int kCycles = 60;
  LockJob<B> job(kWorkers, counters(4));
  auto served = job.serve();
  auto work = [&](int rank) {
    LockClient& client = job.client(rank);
    for (int cycle = 0; cycle < kCycles; ++cycle) {
      // Read-modify-write of a counter that lives in the lock's value, not in shared memory.
      LockGuard held(client, client.acquire_any(Keys{0, 1, 2, 3}, 1 + static_cast<std::uint32_t>(cycle % 2)));
      REQUIRE(held);
      REQUIRE(held.values().size() == held.keys().size());
      for (auto& v : held.values()) ++counter(v);
    }
    client.finish();
  };
  std::vector<std::future<void>> running;
  for (int r = 1; r <= kWorkers; ++r) running.push_back(std::async(std::launch::async, work, r));
  for (auto& f : running) f.get();
  served.get();
  auto values = job.service->take_values();
  REQUIRE(values.size() == 4);
  std::uint64_t total = 0;
  for (auto& v : values) total += counter(v);
  CHECK(total == kWorkers * kCycles * 3 / 2);  // one key on even cycles, two on odd ones
}

TEST_CASE_TEMPLATE("copy_all_values: every key's value in key order, copied, the keys handed back", B, GYRE_TEST_BACKENDS) {
  LockJob<B> job(1, counters(3));
  auto served = job.serve();
  LockClient& client = job.client(1);
  for (std::uint64_t k = 0; k < 3; ++k) {
    LockGuard held(client, client.acquire(Keys{static_cast<LockKey>(k)}));
    REQUIRE(held);
    counter(held.values().front()) = 10 + k;
  }
  auto copies = copy_all_values(client, 3, "counters");
  REQUIRE(copies.size() == 3);
  for (std::uint64_t k = 0; k < 3; ++k) CHECK(counter(copies[k]) == 10 + k);
  counter(copies[0]) = 99;  // a copy: the service's value stays
  LockGuard again(client, client.acquire(Keys{0}));  // handed back, so free again
  REQUIRE(again);
  CHECK(counter(again.values().front()) == 10);
  again.release();
  client.finish();
  served.get();
}

TEST_CASE_TEMPLATE("a guarded key handed back without its value, or with one of another size, fails the job naming the rank",
                   B, GYRE_TEST_BACKENDS) {
  SUBCASE("no value") {
    LockJob<B> job(2, counters(2));
    auto served = job.serve();
    auto grant = job.client(1).acquire(Keys{1});
    REQUIRE(grant.values.size() == 1);
    job.client(1).release(Keys{1});
    CHECK_THROWS_WITH_AS(served.get(), doctest::Contains("rank 1 released key 1 without handing back its value"),
                         JobFailed);
  }
  SUBCASE("another size") {
    LockJob<B> job(2, counters(2));
    auto served = job.serve();
    REQUIRE(job.client(1).acquire(Keys{0}));
    std::vector<Buffer> wrong;
    wrong.emplace_back(4);
    job.client(1).release(Keys{0}, std::move(wrong));
    CHECK_THROWS_WITH_AS(served.get(), doctest::Contains("rank 1 handed back the value of key 0 as 4 bytes; it holds 8"),
                         JobFailed);
  }
  SUBCASE("a key it does not hold") {
    LockJob<B> job(2, counters(2));
    auto served = job.serve();
    REQUIRE(job.client(1).acquire(Keys{0}));
    std::vector<Buffer> value;
    value.emplace_back(8);
    job.client(2).release(Keys{0}, std::move(value));
    CHECK_THROWS_WITH_AS(served.get(), doctest::Contains("rank 2 handed back the value of key 0 without holding it"),
                         JobFailed);
  }
}

TEST_CASE_TEMPLATE("finishing while holding keys fails the job naming the rank and the keys", B, GYRE_TEST_BACKENDS) {
  LockJob<B> job(2, 6);
  auto served = job.serve();
  REQUIRE(job.client(2).acquire(Keys{3, 5}));
  CHECK_THROWS_WITH_AS(job.client(2).finish(), doctest::Contains("rank 2 finished while holding {3,5}"), JobFailed);
  CHECK_THROWS_AS(served.get(), JobFailed);
}

TEST_CASE_TEMPLATE("a dead holder fails the job naming it and its keys; its waiter is not granted", B,
                   GYRE_TEST_BACKENDS) {
  // Rank 2's group fails on its second send: the acquire goes out, the release does not.
  net::FaultSpec one_message;
  one_message.close_after = 1;
  LockJob<B> job(3, 6, {20s, 20s}, [&](Groups& g) { g[2] = net::with_faults(std::move(g[2]), one_message); });
  auto served = job.serve();
  REQUIRE(job.client(2).acquire(Keys{3}));
  auto waiter = std::async(std::launch::async, [&] { return job.client(1).acquire(Keys{3}); });
  job.await_waiting(1);
  job.client(2).release(Keys{3});  // dies instead
  CHECK_THROWS_WITH_AS(served.get(), doctest::Contains("rank 2 held {3}"), JobFailed);
  CHECK_THROWS_WITH_AS(waiter.get(), doctest::Contains("rank 2"), JobFailed);
}

TEST_CASE_TEMPLATE("a holder that keeps a key past the hold timeout is taken for dead", B, GYRE_TEST_BACKENDS) {
  LockJob<B> job(2, 4, {300ms, 20s});
  auto served = job.serve();
  REQUIRE(job.client(2).acquire(Keys{1, 2}));  // and then never a word again
  auto waiter = std::async(std::launch::async, [&] { return job.client(1).acquire(Keys{2}); });
  const auto start = net::Clock::now();
  CHECK_THROWS_WITH_AS(served.get(), doctest::Contains("rank 2 has held key 1 for over 300 ms"), JobFailed);
  CHECK(net::Clock::now() - start < 10s);
  CHECK_THROWS_WITH_AS(waiter.get(), doctest::Contains("rank 2 held {1,2}"), JobFailed);
}

TEST_CASE_TEMPLATE("stop ends every wait without a grant, and run returns once all have finished", B,
                   GYRE_TEST_BACKENDS) {
  LockJob<B> job(2, 4);
  auto served = job.serve();
  REQUIRE(job.client(1).acquire(Keys{0}));
  auto waiter = std::async(std::launch::async, [&] { return job.client(2).acquire(Keys{0}); });
  job.await_waiting(1);
  job.service->stop();
  CHECK(waiter.get().status == LockStatus::kStopped);
  CHECK(job.client(2).stopped());
  job.client(1).release(Keys{0});  // still taken after the stop
  CHECK(job.client(1).acquire_any(Keys{0, 1}).status == LockStatus::kStopped);
  job.client(1).finish();
  job.client(2).finish();
  const LockStats stats = served.get();
  CHECK(stats.grants == 1);
  CHECK(stats.waiting == 0);
  job.service->stop();  // after run() returned: nothing to do, nothing left behind
}

TEST_CASE("a client whose service never answers fails the job at its deadline, naming the service") {
  auto groups = net::make_inproc_groups(2);
  runtime::Mailbox inbox(*groups[1]);
  LockClient client(inbox, 0, {100ms});
  CHECK_THROWS_WITH_AS(client.acquire(Keys{0}), doctest::Contains("lock service on rank 0 within 100 ms"), JobFailed);
  CHECK_THROWS_AS(client.acquire(Keys{0}), JobFailed);  // and stays failed
  // The service's rank is told why (after the request itself).
  auto request = groups[0]->receive(net::Clock::now() + 1s);
  REQUIRE(request);
  CHECK(request->type == kLockAcquire);
  auto abort = groups[0]->receive(net::Clock::now() + 1s);
  REQUIRE(abort);
  CHECK(abort->type == kLockAbort);
  CHECK(std::string(runtime::read_failure(*abort).what()).find("within 100 ms") != std::string::npos);
}

TEST_CASE("a malformed request fails the job naming its sender") {
  auto groups = net::make_inproc_groups(2);
  runtime::Mailbox inbox(*groups[0]);
  LockService service(inbox, {1}, 4, {5s, 5s});
  net::Message m;
  m.type = kLockAcquire;
  m.tag = 1;
  m.meta = wire::encode(LockRequest{0, 0, 1});
  m.body = Buffer(6);  // a key and a half
  groups[1]->send(0, std::move(m));
  CHECK_THROWS_WITH_AS(service.run(), doctest::Contains("rank 1 sent a malformed lock message"), JobFailed);
  auto notice = groups[1]->receive(net::Clock::now() + 1s);
  REQUIRE(notice);
  CHECK(runtime::is_failure_notice(*notice));
}

TEST_CASE_TEMPLATE("a request for keys outside the table fails the job naming its sender", B, GYRE_TEST_BACKENDS) {
  auto groups = B::make(2);
  runtime::Mailbox inbox(*groups[0]);
  LockService service(inbox, {1}, 4, {5s, 5s});
  net::Message m;
  m.type = kLockAcquire;
  m.tag = 1;
  m.meta = wire::encode(LockRequest{0, 0, 2});
  m.body = encode_keys(Keys{1, 4000000000u});
  groups[1]->send(0, std::move(m));
  CHECK_THROWS_WITH_AS(service.run(), doctest::Contains("rank 1 asked for key 4000000000, outside [0, 4)"), JobFailed);
  auto notice = groups[1]->receive(net::Clock::now() + 5s);
  REQUIRE(notice);
  CHECK(runtime::is_failure_notice(*notice));
}

TEST_CASE_TEMPLATE("a grant of keys that were not asked for makes the client give up, naming the service", B,
                   GYRE_TEST_BACKENDS) {
  auto groups = B::make(2);
  runtime::Mailbox inbox(*groups[1]);
  LockClient client(inbox, 0, {5s});
  // Rank 0 plays the service: it answers the request for 1 of {2, 3} with key 7.
  auto service = std::async(std::launch::async, [&] {
    auto request = groups[0]->receive(net::Clock::now() + 5s);
    REQUIRE(request);
    net::Message grant;
    grant.type = kLockGrant;
    grant.tag = request->tag;
    grant.body = encode_keys(Keys{7});
    groups[0]->send(1, std::move(grant));
    auto abort = groups[0]->receive(net::Clock::now() + 5s);
    REQUIRE(abort);
    CHECK(abort->type == kLockAbort);
    return std::string(runtime::read_failure(*abort).what());
  });
  CHECK_THROWS_WITH_AS(client.acquire_any(Keys{2, 3}), "rank 1: rank 0 granted {7} for a request of 1 of {2,3}",
                       JobFailed);
  CHECK(service.get() == "rank 1: rank 0 granted {7} for a request of 1 of {2,3}");
}
