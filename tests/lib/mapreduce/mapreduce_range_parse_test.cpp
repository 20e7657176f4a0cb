// tests/lib/mapreduce/mapreduce_range_parse_test.cpp — settle_ranges and settle_file_ranges: where each rank's range starts, and the file's first error thrown by the rank that holds it.
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

TEST_CASE_TEMPLATE("settle_file_ranges: each file numbered on its own; checked file after file: head, ranges, totals",
                   B, GYRE_TEST_BACKENDS) {
  // Two files: rank r's tally of file 0 is tally_of(r), of file 1 tally_of(r) halved (rank 0 misses file 1).
  const auto tallies = [](int rank, int bad_range_file) {
    std::vector<RangeTally> t{tally_of(rank, bad_range_file == 0 && rank == 2), {}};
    if (rank > 0) {
      t[1] = tally_of(rank, bad_range_file == 1 && rank == 1);
      t[1].lines /= 2;
    }
    return t;
  };
  SUBCASE("without an error: each rank's start within each file, and each file's totals") {
    std::vector<std::vector<mapreduce::RangeStarts>> seen(3);
    std::vector<std::string> checked;  // rank 0's
    mapreduce::run(job_of<B>(3), [&](Context& ctx) {
      mapreduce::FileRangeRules rules;
      rules.check_head = [&](std::size_t f) { if (ctx.rank() == 0) checked.push_back("head " + std::to_string(f)); };
      rules.crosses = [](std::size_t, const RangeTally&, const RangeTally&) { return false; };
      rules.rethrow = [](std::size_t, const RangeTally&) { FAIL("no range is bad"); };
      rules.check_total = [&](std::size_t f, const RangeTally& total) {
        if (ctx.rank() == 0) checked.push_back("total " + std::to_string(f) + " " + std::to_string(total.lines));
      };
      seen[static_cast<std::size_t>(ctx.rank())] = mapreduce::settle_file_ranges(ctx, tallies(ctx.rank(), -1), rules);
    });
    CHECK(checked == std::vector<std::string>{"head 0", "total 0 60", "head 1", "total 1 25"});
    for (int r = 0; r < 3; ++r) {
      CAPTURE(r);
      const auto& s = seen[static_cast<std::size_t>(r)];
      REQUIRE(s.size() == 2);
      CHECK(s[0].before.lines == 10 * static_cast<std::uint64_t>(r * (r + 1) / 2));
      CHECK(s[1].before.lines == (r == 2 ? 10u : 0u));  // rank 1's 20 lines halved
      CHECK(s[1].before.records == (r == 2 ? 10u : 0u));
      CHECK(s[1].total.records == 25);
    }
  }
  struct Case {
    const char* what;
    int bad_range_file;   // the file whose range fails (rank 2's of file 0, rank 1's of file 1), or -1
    int bad_head;         // the file whose head is bad, or -1
    int bad_total;        // the file whose totals are bad, or -1
    const char* expected; // the error every rank reports
  };
  const Case cases[] = {
      {"a bad range of file 0 before file 1's bad head", 0, 1, -1, "range 0 at 30"},
      {"file 0's bad totals before file 1's bad range", 1, -1, 0, "total 0"},
      {"file 1's bad head before its bad range", 1, 1, -1, "head 1"},
      {"a bad range of file 1, numbered within file 1", 1, -1, -1, "range 1 at 0"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.what);
    const auto error = error_of([&] {
      mapreduce::run(job_of<B>(3), [&](Context& ctx) {
        mapreduce::FileRangeRules rules;
        rules.check_head = [&](std::size_t f) {
          if (static_cast<int>(f) == c.bad_head) throw std::runtime_error("head " + std::to_string(f));
        };
        rules.crosses = [](std::size_t, const RangeTally&, const RangeTally&) { return false; };
        rules.rethrow = [&](std::size_t f, const RangeTally& before) {
          throw std::runtime_error("range " + std::to_string(f) + " at " + std::to_string(before.lines));
        };
        rules.check_total = [&](std::size_t f, const RangeTally&) {
          if (static_cast<int>(f) == c.bad_total) throw std::runtime_error("total " + std::to_string(f));
        };
        mapreduce::settle_file_ranges(ctx, tallies(ctx.rank(), c.bad_range_file), rules);
      });
    });
    CHECK_MESSAGE(error.find(c.expected) != std::string::npos, error);
  }
}
