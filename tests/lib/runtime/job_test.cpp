// tests/lib/runtime/job_test.cpp — one run() for every backend: who runs where, how members are named, what is refused.
#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <future>
#include <thread>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "gyre/cluster/rendezvous.hpp"
#include "gyre/net/handshake.hpp"
#include "gyre/net/tcp.hpp"
#include "gyre/runtime/job.hpp"
#include "lib/net/backends.hpp"
#include "support/multiprocess.hpp"

using namespace gyre;
using namespace std::chrono_literals;
using runtime::FailureCause;
using runtime::JobFailed;

namespace {

// Every member sends its rank to member 0, which checks it heard from everyone.
void ring_call(const runtime::Member& m, int members) {
  net::Message hello;
  hello.type = 0x1001;
  hello.tag = static_cast<std::uint64_t>(m.rank);
  m.group.send(0, std::move(hello));
  if (m.rank != 0) return;
  std::set<std::uint64_t> heard;
  while (static_cast<int>(heard.size()) < members) {
    auto got = m.mailbox.receive([](const net::Message& x) { return x.type == 0x1001; }, net::Clock::now() + 20s);
    REQUIRE(got);
    CHECK(got->tag == static_cast<std::uint64_t>(got->sender));
    heard.insert(got->tag);
  }
}

runtime::ProcessesBackend process(int rank, int size, std::uint16_t port) {
  runtime::ProcessesBackend p;
  p.launch = {rank, size, "flags"};
  p.coordinator = {"127.0.0.1", port};
  p.token = "test-token";
  p.connect_timeout = 20s;
  p.log = [](const std::string&) {};
  return p;
}

}  // namespace

TEST_CASE_TEMPLATE("every member of a job runs once, on this process's backend, and can reach every other", B,
                   GYRE_TEST_BACKENDS) {
  runtime::Job job;
  job.workers = 3;
  job.roles = {"the scheduler", "the lock service"};
  job.backend = B::runtime_backend();
  std::mutex mutex;
  std::multiset<int> ran;
  runtime::run(job, [&](const runtime::Member& m) {
    CHECK(m.group.rank() == m.rank);
    CHECK(m.group.size() == 5);
    CHECK(&m.mailbox.group() == &m.group);
    {
      std::lock_guard lock(mutex);
      ran.insert(m.rank);
    }
    ring_call(m, 5);
  });
  CHECK(ran == std::multiset<int>{0, 1, 2, 3, 4});
}

TEST_CASE("a loopback job without a token of the caller's draws its own") {
  runtime::Job job;
  job.workers = 3;
  job.backend = runtime::LoopbackBackend{};
  std::atomic<int> ran{0};
  runtime::run(job, [&](const runtime::Member& m) {
    ring_call(m, 3);
    ++ran;
  });
  CHECK(ran == 3);
  const std::string a = net::random_token(), b = net::random_token();
  CHECK(a.size() == 64);
  CHECK(a != b);
}

TEST_CASE("members are named for messages, and the roles are dealt over the processes from process 0") {
  runtime::Job job;
  job.workers = 3;
  job.roles = {"server 0", "server 1", "server 2", "server 3"};
  CHECK(job.members() == 7);
  CHECK(job.name(2) == "rank 2");
  CHECK(job.name(3) == "server 0 (member 3, in rank 0's process)");
  CHECK(job.host_of(3) == 0);
  CHECK(job.host_of(4) == 1);
  CHECK(job.host_of(6) == 0);
  CHECK(job.name(6) == "server 3 (member 6, in rank 0's process)");
}

TEST_CASE("across processes, each process runs its worker and the roles it hosts; together they are one job") {
  // Three "processes" as threads of this test, each with its own run() over tcp on loopback.
  const std::uint16_t port = gyre::test::free_port();
  std::mutex mutex;
  std::vector<std::pair<int, int>> ran;  // (process, member)
  std::vector<std::future<void>> processes;
  for (int p = 0; p < 3; ++p)
    processes.push_back(std::async(std::launch::async, [&, p] {
      runtime::Job job;
      job.workers = 3;
      job.roles = {"server 0", "server 1"};
      job.backend = process(p, 3, port);
      runtime::run(job, [&](const runtime::Member& m) {
        {
          std::lock_guard lock(mutex);
          ran.emplace_back(p, m.rank);
        }
        ring_call(m, 5);
      });
    }));
  for (auto& f : processes) f.get();
  std::sort(ran.begin(), ran.end());
  CHECK(ran == std::vector<std::pair<int, int>>{{0, 0}, {0, 3}, {1, 1}, {1, 4}, {2, 2}});
}

TEST_CASE("across processes, two jobs in a row on one coordinator socket: process 0 listens once, and keeps the port in between") {
  const auto listener = std::make_shared<const net::TcpListener>("127.0.0.1", 0);
  const std::uint16_t port = listener->endpoint().port;
  std::atomic<int> ran{0};
  std::string between;  // what binding the port said between the jobs, in process 0
  std::vector<std::future<void>> processes;
  for (int p = 0; p < 3; ++p)
    processes.push_back(std::async(std::launch::async, [&, p] {
      auto backend = process(p, 3, port);
      if (p == 0) backend.coordinator_listener = listener;
      for (const char* id : {"job-load", "job"}) {
        backend.job_id = id;
        runtime::Job job;
        job.workers = 3;
        job.backend = backend;
        runtime::run(job, [&](const runtime::Member& m) {
          ring_call(m, 3);
          ++ran;
        });
        if (p == 0 && between.empty()) try {
            net::TcpListener taken("127.0.0.1", port);
            between = "bound";
          } catch (const std::exception& e) {
            between = e.what();
          }
      }
    }));
  for (auto& f : processes) f.get();
  CHECK(ran == 6);
  CHECK_MESSAGE(between.find("Address already in use") != std::string::npos, between);
}

TEST_CASE("a job that cannot run is refused before anything starts, an empty token by every layer") {
  runtime::Job job;
  job.workers = 0;
  CHECK_THROWS_WITH_AS(runtime::run(job, [](const runtime::Member&) {}), "a job needs at least one worker",
                       std::invalid_argument);
  job.workers = 2;
  job.backend = process(0, 3, 1);
  CHECK_THROWS_WITH_AS(runtime::run(job, [](const runtime::Member&) {}),
                       "one worker per process: 3 processes for 2 workers", std::invalid_argument);
  auto empty = process(0, 2, 1);
  empty.token.clear();
  job.backend = empty;
  CHECK_THROWS_WITH_AS(runtime::run(job, [](const runtime::Member&) {}), "a job across processes needs a token",
                       std::invalid_argument);

  net::TcpOptions tcp;
  tcp.job_id = "j";
  CHECK_THROWS_WITH_AS(net::make_loopback_tcp_groups(2, tcp), doctest::Contains("an empty token"),
                       std::invalid_argument);
  cluster::RendezvousOptions ro;
  ro.job_id = "j";
  CHECK_THROWS_WITH_AS(cluster::Coordinator({"127.0.0.1", 0}, 2, ro), doctest::Contains("an empty token"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(cluster::rendezvous({"127.0.0.1", 1}, 0, 1, 2, ro), doctest::Contains("an empty token"),
                       std::invalid_argument);
}

// Issue 39: a job that never forms is a typed failure naming who is missing or refused.
TEST_CASE("across processes, a member that never joins, or holds another token, fails the job as kSetup naming it") {
  const auto outcome = [](const std::vector<runtime::ProcessesBackend>& processes) {
    std::vector<std::future<std::string>> runs;
    for (const auto& p : processes)
      runs.push_back(std::async(std::launch::async, [p] {
        runtime::Job job;
        job.workers = p.launch.size;
        job.backend = p;
        try {
          runtime::run(job, [](const runtime::Member&) {});
        } catch (const JobFailed& e) {
          return std::to_string(e.rank()) + " " + std::string(runtime::to_string(e.cause()));
        } catch (const std::exception& e) {
          return std::string("untyped: ") + e.what();
        }
        return std::string("formed");
      }));
    std::vector<std::string> out;
    for (auto& r : runs) out.push_back(r.get());
    return out;
  };
  SUBCASE("rank 1 never starts") {
    auto p0 = process(0, 2, gyre::test::free_port());
    p0.connect_timeout = 500ms;
    const auto got = outcome({p0});
    CHECK(got.at(0) == "1 setup");
  }
  SUBCASE("rank 1 holds another token") {
    const std::uint16_t port = gyre::test::free_port();
    auto p0 = process(0, 2, port), p1 = process(1, 2, port);
    p0.connect_timeout = p1.connect_timeout = 2s;
    p1.token = "another-token";
    const auto got = outcome({p0, p1});
    CHECK(got.at(0) == "1 setup");  // the coordinator names the rank it never registered
    CHECK(got.at(1).ends_with(" setup"));
  }
}

TEST_CASE("a part that fails stops the job; across processes the others get JobFailed naming the member") {
  const std::uint16_t port = gyre::test::free_port();
  std::vector<std::future<std::string>> processes;
  for (int p = 0; p < 2; ++p)
    processes.push_back(std::async(std::launch::async, [&, p]() -> std::string {
      runtime::Job job;
      job.workers = 2;
      job.roles = {"the scheduler"};
      job.backend = process(p, 2, port);
      try {
        runtime::run(job, [&](const runtime::Member& m) {
          if (m.rank == 1)  // tells the others, as every engine does, then fails
            runtime::fail_job(m.group, {0, 2},
                              JobFailed(1, FailureCause::kError, "rank 1: " + std::string(500, 'z') + " the end"));
          m.mailbox.receive([](const net::Message&) { return false; }, net::Clock::now() + 20s);
        });
      } catch (const JobFailed& e) {
        return std::to_string(e.rank()) + " " + std::string(runtime::to_string(e.cause())) + " " + e.what();
      }
      return "no failure";
    }));
  const std::string expected = "1 error rank 1: " + std::string(500, 'z') + " the end";
  CHECK(processes[0].get() == expected);  // the whole text, not cut at 240 characters
  CHECK(processes[1].get() == expected);
}

// The hang of a scheduler whose worker neighbour's transport dropped a peer (issue 36): the
// worker's part ends with the drop, while the scheduler, beside it in the same process, waits on
// links that are all still up for a report that will never come.
TEST_CASE("across processes, a member that fails frees the members beside it, whatever they wait on") {
  const std::uint16_t port = gyre::test::free_port();
  runtime::Job job;
  job.workers = 1;
  job.roles = {"the scheduler"};
  job.backend = process(0, 1, port);
  const auto start = net::Clock::now();
  std::atomic<bool> scheduler_heard{false};
  try {
    runtime::run(job, [&](const runtime::Member& m) {
      if (m.rank == 0) throw net::GroupClosed("rank 1 (10.0.0.2:7) failed: silent for 5838 ms (heartbeat timeout)");
      try {
        m.mailbox.receive([](const net::Message&) { return false; }, net::Clock::now() + 60s);
      } catch (const JobFailed& e) {
        scheduler_heard = e.cause() == FailureCause::kPeerLost &&
                          std::string(e.what()).find("silent for 5838 ms") != std::string::npos;
        throw;
      }
    });
    FAIL("the job ended without its failure");
  } catch (const JobFailed& e) {  // the scheduler's, which speaks for the whole job
    CHECK(e.cause() == FailureCause::kPeerLost);
    CHECK(std::string(e.what()).find("heartbeat timeout") != std::string::npos);
  }
  CHECK(scheduler_heard);
  CHECK(net::Clock::now() - start < 20s);
}

namespace {

int threads_of_this_process() {
  int n = 0;
  for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator("/proc/self/task")) ++n;
  return n;
}

}  // namespace

TEST_CASE_TEMPLATE("cancel() stops a running job within 2 s and leaves no thread behind", B, GYRE_TEST_BACKENDS) {
  const int before = threads_of_this_process();
  std::atomic<int> started{0};
  {
    runtime::Job job;
    job.workers = 3;
    job.roles = {"the scheduler"};
    job.backend = B::runtime_backend();
    runtime::JobHandle handle(job, [&](const runtime::Member& m) {
      ++started;
      // Waits for a message that never comes, as a worker waits for its next block.
      m.mailbox.receive([](const net::Message&) { return false; }, net::Clock::now() + 60s);
    });
    for (int i = 0; i < 200 && started < 4; ++i) std::this_thread::sleep_for(10ms);
    REQUIRE(started == 4);
    CHECK_FALSE(handle.wait_for(50ms));
    const auto start = std::chrono::steady_clock::now();
    handle.cancel();
    CHECK(handle.wait_for(2s));
    CHECK(std::chrono::steady_clock::now() - start < 2s);
    try {
      handle.wait();
      FAIL("a cancelled job ended normally");
    } catch (const JobFailed& e) {
      CHECK(e.cause() == FailureCause::kCancelled);
    }
  }
  // The io threads of the tcp backend end with their groups; give them a moment to be reaped.
  int after = threads_of_this_process();
  for (int i = 0; i < 100 && after > before; ++i) {
    std::this_thread::sleep_for(10ms);
    after = threads_of_this_process();
  }
  CHECK(after == before);
}

TEST_CASE("a job that ends by itself keeps its outcome; the handle's destructor waits for it") {
  runtime::Job job;
  job.workers = 2;
  runtime::JobHandle ok(job, [](const runtime::Member&) {});
  ok.wait();
  ok.cancel();  // too late: nothing changes
  CHECK_NOTHROW(ok.wait());
  runtime::JobHandle failing(job, [](const runtime::Member& m) {
    if (m.rank == 1) throw std::out_of_range("member 1's own error");
  });
  CHECK_THROWS_WITH_AS(failing.wait(), "member 1's own error", std::out_of_range);
}
