// tests/lib/mapreduce/mapreduce_verbs_test.cpp — the map-reduce verbs against plain references on random data, on every backend.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <mutex>
#include <random>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "gyre/mapreduce/mapreduce.hpp"
#include "lib/mapreduce/jobs.hpp"
#include "lib/net/backends.hpp"
#include "support/temp_dir.hpp"

using namespace gyre;
using mapreduce::Collection;
using gyre_test::job_of;
using mapreduce::Context;

namespace {

// The same random pairs on every rank (seeded), keys in [0, keys).
template <class V>
std::vector<std::pair<std::uint32_t, V>> random_pairs(std::uint32_t seed, std::size_t n, std::uint32_t keys) {
  std::mt19937 rng(seed);
  std::vector<std::pair<std::uint32_t, V>> out;
  for (std::size_t i = 0; i < n; ++i) out.emplace_back(rng() % keys, static_cast<V>(rng() % 1000));
  return out;
}

}  // namespace

TEST_CASE_TEMPLATE("reduce_by_key sums every key's values onto its owner rank", B, GYRE_TEST_BACKENDS) {
  const auto pairs = random_pairs<std::int64_t>(7, 5000, 300);
  std::map<std::uint32_t, std::int64_t> want;
  for (const auto& [k, v] : pairs) want[k] += v;
  for (const int P : {1, 3}) {
    CAPTURE(P);
    std::vector<std::vector<std::pair<std::uint32_t, std::int64_t>>> held(static_cast<std::size_t>(P));
    std::map<std::uint32_t, std::int64_t> got;
    mapreduce::run(job_of<B>(P), [&](Context& ctx) {
      auto sums = mapreduce::reduce_by_key(mapreduce::distribute(ctx, pairs), std::plus<std::int64_t>{});
      held[static_cast<std::size_t>(ctx.rank())] = sums.local();
      const auto all = mapreduce::collect_all(sums);
      if (ctx.rank() == 0)
        for (const auto& [k, v] : all) CHECK(got.emplace(k, v).second);  // each key once
    });
    CHECK(got == want);
    for (int r = 0; r < P; ++r)
      for (const auto& [k, v] : held[static_cast<std::size_t>(r)]) CHECK(mapreduce::owner_of(k, P) == r);
  }
}

TEST_CASE_TEMPLATE("reduce_by_key on string keys counts words like a map", B, GYRE_TEST_BACKENDS) {
  std::mt19937 rng(3);
  std::vector<std::pair<std::string, std::uint64_t>> words;
  std::map<std::string, std::uint64_t> want;
  for (int i = 0; i < 3000; ++i) {
    std::string w(1 + rng() % 4, 'a');
    for (char& c : w) c = static_cast<char>('a' + rng() % 3);
    words.emplace_back(w, 1);
    ++want[w];
  }
  std::vector<std::pair<std::string, std::uint64_t>> got;
  mapreduce::run(job_of<B>(3), [&](Context& ctx) {
    auto counts = mapreduce::reduce_by_key(mapreduce::distribute(ctx, words), std::plus<std::uint64_t>{});
    auto all = mapreduce::collect(counts);
    if (ctx.rank() == 0) got = std::move(all);
  });
  CHECK(std::map<std::string, std::uint64_t>(got.begin(), got.end()) == want);
  CHECK(got.size() == want.size());
}

TEST_CASE_TEMPLATE("join gives every pair of values that share a key", B, GYRE_TEST_BACKENDS) {
  const auto left = random_pairs<std::int32_t>(11, 800, 120);
  const auto right = random_pairs<double>(12, 600, 150);
  using Triple = std::tuple<std::uint32_t, std::int32_t, double>;
  std::vector<Triple> want;
  for (const auto& [k, v] : left)
    for (const auto& [k2, w] : right)
      if (k == k2) want.emplace_back(k, v, w);
  std::sort(want.begin(), want.end());
  for (const int P : {1, 3}) {
    CAPTURE(P);
    std::vector<Triple> got;
    mapreduce::run(job_of<B>(P), [&](Context& ctx) {
      auto joined = mapreduce::join(mapreduce::distribute(ctx, left), mapreduce::distribute(ctx, right));
      const auto all = mapreduce::collect(joined);
      if (ctx.rank() == 0)
        for (const auto& [k, vw] : all) got.emplace_back(k, vw.first, vw.second);
    });
    std::sort(got.begin(), got.end());
    CHECK(got == want);
  }
}

TEST_CASE_TEMPLATE("map, flatmap, filter, union, fold, reduce, count, collect and broadcast", B, GYRE_TEST_BACKENDS) {
  std::vector<std::int64_t> values(1000);
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = static_cast<std::int64_t>(i);
  std::mutex m;
  std::vector<std::string> failures;
  mapreduce::run(job_of<B>(3), [&](Context& ctx) {
    const auto c = mapreduce::distribute(ctx, values);
    auto squares = c.map([](std::int64_t v) { return v * v; });
    auto evens = c.filter([](std::int64_t v) { return v % 2 == 0; });
    auto twice = c.flatmap<std::int64_t>([](std::int64_t v, auto emit) {
      emit(v);
      emit(-v);
    });
    auto both = evens.union_with(squares);
    const auto sum = mapreduce::fold(c, std::int64_t{0}, [](std::int64_t a, std::int64_t v) { return a + v; },
                                     [](std::int64_t a, std::int64_t b) { return a + b; });
    const auto largest = mapreduce::reduce(squares, [](std::int64_t a, std::int64_t b) { return std::max(a, b); });
    const auto none = mapreduce::reduce(c.filter([](std::int64_t) { return false; }), std::plus<std::int64_t>{});
    const auto in_order = mapreduce::collect_all(c);
    const auto strings = mapreduce::broadcast(ctx, std::vector<std::string>{"from", "rank " + std::to_string(ctx.rank())}, 2);
    const auto counts = std::vector{mapreduce::count(twice), mapreduce::count(evens), mapreduce::count(both)};
    std::lock_guard lock(m);  // after the last collective verb: a rank holding it must not wait for another
    if (counts != std::vector<std::uint64_t>{2000, 500, 1500}) failures.push_back("flatmap, filter or union count");
    if (sum != 999 * 1000 / 2) failures.push_back("fold");
    if (largest != 999 * 999) failures.push_back("reduce");
    if (none) failures.push_back("reduce of nothing");
    if (in_order != values) failures.push_back("collect order");
    if (strings != std::vector<std::string>{"from", "rank 2"}) failures.push_back("broadcast");
  });
  CHECK(failures.empty());
}

TEST_CASE_TEMPLATE("save writes every rank's values, in rank order, through rank 0", B, GYRE_TEST_BACKENDS) {
  test::TempDir dir;
  mapreduce::run(job_of<B>(3), [&](Context& ctx) {
    const auto c = mapreduce::distribute(ctx, std::vector<int>{1, 2, 3, 4, 5});
    mapreduce::save(c, dir / "out.txt", [](int v) { return "value " + std::to_string(v); });
  });
  CHECK(test::read_text(dir / "out.txt") == "value 1\nvalue 2\nvalue 3\nvalue 4\nvalue 5\n");
}

TEST_CASE("values decode with bounds: a count larger than the bytes is refused before allocating") {
  std::vector<std::pair<std::string, std::vector<std::uint32_t>>> values{{"a", {1, 2}}, {"", {}}};
  const Buffer body = mapreduce::encode_values<std::pair<std::string, std::vector<std::uint32_t>>>(values);
  std::vector<std::pair<std::string, std::vector<std::uint32_t>>> back;
  mapreduce::decode_values(body.bytes(), back, "test: ");
  CHECK(back == values);
  // A count of 2^60 values in an 8-byte body, and a string claiming 4 GiB.
  wire::Writer w(8);
  w.put(std::uint64_t{1} << 60);
  const Buffer huge = w.finish();
  std::vector<std::string> none;
  CHECK_THROWS_WITH_AS(mapreduce::decode_values(huge.bytes(), none, "test: "), doctest::Contains("does not fit"),
                       wire::DecodeError);
  wire::Writer s(12);
  s.put(std::uint64_t{1}).put(std::uint32_t{0xFFFFFFFF});
  const Buffer long_string = s.finish();
  CHECK_THROWS_WITH_AS(mapreduce::decode_values(long_string.bytes(), none, "test: "), doctest::Contains("does not fit"),
                       wire::DecodeError);
}

TEST_CASE_TEMPLATE("load splits a file by byte ranges: each line on one rank, the ranks' bytes summing to its size", B,
                   GYRE_TEST_BACKENDS) {
  test::TempDir dir;
  std::string text;
  for (int i = 0; i < 500; ++i) text += "line " + std::to_string(i) + (i % 7 == 0 ? "\r\n" : "\n");
  text += "last line without a newline";
  test::write_text(dir / "in.txt", text);
  std::vector<std::string> want;
  for (int i = 0; i < 500; ++i) want.push_back("line " + std::to_string(i));
  want.push_back("last line without a newline");
  for (const int P : {1, 3}) {
    CAPTURE(P);
    std::vector<mapreduce::LoadStats> stats(static_cast<std::size_t>(P));
    std::vector<std::string> got;
    mapreduce::run(job_of<B>(P), [&](Context& ctx) {
      auto lines = mapreduce::load(ctx, dir / "in.txt", &stats[static_cast<std::size_t>(ctx.rank())]);
      auto all = mapreduce::collect(lines);
      if (ctx.rank() == 0) got = std::move(all);
    });
    CHECK(got == want);
    std::uint64_t bytes = 0, lines = 0;
    for (const auto& s : stats) {
      bytes += s.bytes;
      lines += s.lines;
      if (P > 1) CHECK(s.lines > 0);  // each rank has a share
    }
    CHECK(bytes == text.size());
    CHECK(lines == want.size());
  }
}
