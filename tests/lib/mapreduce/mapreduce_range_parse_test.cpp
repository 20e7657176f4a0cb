// tests/lib/mapreduce/mapreduce_range_parse_test.cpp — settle_ranges: where each rank's range starts, and the file's first error thrown by the rank that holds it.
#include <doctest/doctest.h>

#include <atomic>
#include <stdexcept>
#include <string>
#include <vector>

#include "gyre/mapreduce/mapreduce.hpp"
#include "lib/mapreduce/jobs.hpp"
#include "lib/net/backends.hpp"

using namespace gyre;
using gyre_test::error_of;
using gyre_test::job_of;
using mapreduce::Context;
using mapreduce::RangeTally;

namespace {

// Rank r's range: 10·(r+1) lines, 5·(r+1) records, 100·(r+1) tokens.
RangeTally tally_of(int rank, bool failed = false) {
  const auto k = static_cast<std::uint64_t>(rank + 1);
  return {1000 * k, 10 * k, 5 * k, 100 * k, failed};
}

}  // namespace

TEST_CASE_TEMPLATE("settle_ranges: each rank's start is the lower ranks' totals, and every rank sees every range", B,
                   GYRE_TEST_BACKENDS) {
  std::vector<mapreduce::RangeStarts> seen(3);
  mapreduce::run(job_of<B>(3), [&](Context& ctx) {
    seen[static_cast<std::size_t>(ctx.rank())] = mapreduce::settle_ranges(
        ctx, tally_of(ctx.rank()), [](const RangeTally&, const RangeTally&) { return false; },
        [](const RangeTally&) { FAIL("no range is bad"); });
  });
  for (int r = 0; r < 3; ++r) {
    CAPTURE(r);
    const auto& s = seen[static_cast<std::size_t>(r)];
    const std::uint64_t before = static_cast<std::uint64_t>(r * (r + 1) / 2);  // 1 + 2 + ... + r
    CHECK(s.before.lines == 10 * before);
    CHECK(s.before.records == 5 * before);
    CHECK(s.before.tokens == 100 * before);
    CHECK(s.total.bytes == 6000);
    CHECK(s.total.lines == 60);
    REQUIRE(s.ranges.size() == 3);
    CHECK(s.ranges[2].records == 15);
  }
}

TEST_CASE_TEMPLATE("settle_ranges: the first rank that failed or crosses a limit rethrows with its true start; the others name it",
                   B, GYRE_TEST_BACKENDS) {
  struct Case {
    const char* what;
    int failed;           // the rank whose parse failed, or -1
    std::uint64_t limit;  // records the file may hold
    int holder;           // the rank expected to rethrow
  };
  const Case cases[] = {
      {"rank 2 failed", 2, UINT64_MAX, 2},
      {"the record limit crossed in rank 1's range, before rank 2's failure", 2, 12, 1},
      {"rank 0 failed, although rank 1 crosses", 0, 12, 0},
  };
  for (const Case& c : cases) {
    CAPTURE(c.what);
    std::atomic<int> rethrown{-1};
    std::atomic<std::uint64_t> start_lines{0};
    const auto error = error_of([&] {
      mapreduce::run(job_of<B>(3), [&](Context& ctx) {
        mapreduce::settle_ranges(
            ctx, tally_of(ctx.rank(), ctx.rank() == c.failed),
            [&](const RangeTally&, const RangeTally& through) { return through.records > c.limit; },
            [&](const RangeTally& before) {
              rethrown = ctx.rank();
              start_lines = before.lines;
              throw std::runtime_error("file.txt:" + std::to_string(before.lines + 1) + ": expected something");
            });
      });
    });
    CHECK(rethrown == c.holder);
    CHECK(start_lines == 10 * static_cast<std::uint64_t>(c.holder * (c.holder + 1) / 2));
    CHECK_MESSAGE(error.find("expected something") != std::string::npos, error);
  }
}
