// tests/lib/mapreduce/mapreduce_errors_test.cpp — a malformed shuffle message fails the job naming its sender; a shuffle over the limit names the limit.
#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <functional>
#include <exception>
#include <future>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "gyre/base/input_error.hpp"
#include "gyre/collective/communicator.hpp"
#include "gyre/mapreduce/mapreduce.hpp"
#include "gyre/runtime/failure.hpp"
#include "lib/mapreduce/jobs.hpp"
#include "lib/net/backends.hpp"
#include "support/multiprocess.hpp"

using namespace gyre;
using gyre_test::error_of;
using gyre_test::job_of;
using mapreduce::Context;

namespace {

std::vector<std::pair<std::uint32_t, std::uint64_t>> pairs(std::size_t n) {
  std::vector<std::pair<std::uint32_t, std::uint64_t>> out;
  for (std::size_t i = 0; i < n; ++i) out.emplace_back(static_cast<std::uint32_t>(i), i);
  return out;
}

// A shuffle's first message (op 0, step 0) with `body`, sent by hand to every other rank.
void send_crafted(Context& ctx, const std::vector<std::byte>& body) {
  for (int r = 0; r < ctx.size(); ++r) {
    if (r == ctx.rank()) continue;
    net::Message m;
    m.type = collective::kCollectiveMessage;
    m.tag = collective::Communicator::message_tag(0, 0);
    m.body = Buffer(body.size());
    std::copy(body.begin(), body.end(), m.body.data());
    ctx.mailbox().group().send(r, std::move(m));
  }
}

std::vector<std::byte> count_then_tail(std::uint64_t count, std::size_t tail) {
  std::vector<std::byte> out(8 + tail, std::byte{0x41});
  for (int i = 0; i < 8; ++i) out[static_cast<std::size_t>(i)] = static_cast<std::byte>((count >> (8 * i)) & 0xFF);
  return out;
}

}  // namespace

TEST_CASE_TEMPLATE("a malformed shuffle message fails the job with an error naming its sender", B, GYRE_TEST_BACKENDS) {
  const std::vector<std::pair<const char*, std::vector<std::byte>>> bodies{
      {"a count far beyond the body", count_then_tail(std::uint64_t{1} << 60, 3)},
      {"a truncated pair", count_then_tail(2, 10)},
      {"trailing bytes", count_then_tail(0, 5)},
      {"no count at all", std::vector<std::byte>(3)},
  };
  for (const auto& crafted : bodies) {
    const char* const what = crafted.first;
    const std::vector<std::byte>& body = crafted.second;
    CAPTURE(what);
    const auto error = error_of([&] {
      mapreduce::run(job_of<B>(3), [&](Context& ctx) {
        if (ctx.rank() == 1) {
          send_crafted(ctx, body);
          // Waits for the job's failure without a verb, whose messages the others' shuffle would answer.
          ctx.mailbox().receive([](const net::Message&) { return false; }, net::Clock::now() + std::chrono::seconds(20));
          return;
        }
        mapreduce::shuffle(mapreduce::distribute(ctx, pairs(100)));
      });
    });
    CHECK_MESSAGE(error.find("rank 1 sent a malformed message") != std::string::npos, error);
    CHECK_MESSAGE(error.find("shuffle") != std::string::npos, error);
  }
}

TEST_CASE_TEMPLATE("a shuffle over the byte limit is an error naming the limit, on the rank that exceeds it", B,
                   GYRE_TEST_BACKENDS) {
  mapreduce::Options options;
  options.max_shuffle_bytes = 4000;
  const auto error = error_of([&] {
    mapreduce::run(
        job_of<B>(3),
        [&](Context& ctx) {
          // Rank 0 holds every pair: two thirds of 2000 × 12 bytes leave it.
          auto c = mapreduce::Collection(ctx, ctx.rank() == 0 ? pairs(2000) : decltype(pairs(0)){});
          mapreduce::reduce_by_key(std::move(c), std::plus<std::uint64_t>{});
        },
        options);
  });
  CHECK_MESSAGE(error.find("rank 0 would send") != std::string::npos, error);
  CHECK_MESSAGE(error.find("over the shuffle limit of 4000 bytes") != std::string::npos, error);
  // Under the limit the same job runs.
  options.max_shuffle_bytes = 1 << 20;
  CHECK(error_of([&] {
          mapreduce::run(job_of<B>(3), [&](Context& ctx) {
            auto c = mapreduce::Collection(ctx, ctx.rank() == 0 ? pairs(2000) : decltype(pairs(0)){});
            mapreduce::reduce_by_key(std::move(c), std::plus<std::uint64_t>{});
          }, options);
        }) == "(no error)");
}

TEST_CASE("a job with roles, or a limit past the largest frame, is refused") {
  runtime::Job job;
  job.workers = 2;
  job.roles = {"the scheduler"};
  CHECK_THROWS_AS(mapreduce::run(job, [](Context&) {}), std::invalid_argument);
  mapreduce::Options options;
  options.max_shuffle_bytes = std::uint64_t{2} << 30;
  CHECK(error_of([&] { mapreduce::run(runtime::Job{}, [](Context&) {}, options); }).find("max_shuffle_bytes") !=
        std::string::npos);
}

TEST_CASE("across processes the other ranks hear a rank's refused input as kBadInput, any other error as kError") {
  const std::vector<std::pair<std::function<void()>, std::string>> cases{
      {[] { throw InputError("data.txt", 7, "a number", "x"); }, "bad input"},
      {[] { throw std::invalid_argument("3 workers but 2 documents"); }, "bad input"},
      {[] { throw std::runtime_error("disk on fire"); }, "error"},
  };
  for (const auto& c : cases) {
    const std::function<void()>& raise = c.first;
    const std::string& expected = c.second;
    CAPTURE(expected);
    const std::uint16_t port = gyre::test::free_port();
    std::vector<std::future<std::string>> processes;
    for (int p = 0; p < 3; ++p)
      processes.push_back(std::async(std::launch::async, [&, p]() -> std::string {
        runtime::ProcessesBackend backend;
        backend.launch = {p, 3, "flags"};
        backend.coordinator = {"127.0.0.1", port};
        backend.token = "test-token";
        backend.connect_timeout = std::chrono::seconds(20);
        backend.log = [](const std::string&) {};
        runtime::Job job;
        job.workers = 3;
        job.backend = backend;
        try {
          mapreduce::run(job, [&](Context& ctx) {
            if (ctx.rank() == 1) raise();
            (void)ctx.sum(0);  // never completes: rank 1 never joins it
          });
        } catch (const runtime::JobFailed& e) {
          return std::to_string(e.rank()) + " " + std::string(runtime::to_string(e.cause()));
        } catch (const std::exception& e) {
          return std::string("own: ") + e.what();
        }
        return "no failure";
      }));
    CHECK(processes[0].get() == "1 " + expected);
    CHECK(processes[1].get().rfind("own: ", 0) == 0);  // the rank that threw gets its own exception back
    CHECK(processes[2].get() == "1 " + expected);
  }
}
