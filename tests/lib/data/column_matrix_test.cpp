// tests/lib/data/column_matrix_test.cpp — the column copy of a regression set: rows increasing in every column, the same matrix on any thread count.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "gyre/base/thread_arena.hpp"
#include "gyre/data/column_matrix.hpp"
#include "gyre/data/regression.hpp"

using namespace gyre::data;

TEST_CASE("to_columns: CSC copy with rows increasing per column") {
  RegressionSet s;
  s.features = 4;
  const std::vector<std::uint32_t> c0{0, 2}, c1{2}, c2{0, 1, 2};
  const std::vector<double> v0{1, 2}, v1{3}, v2{4, 5, 6};
  s.add_row(10, 0, c0, v0);
  s.add_row(11, 0, c1, v1);
  s.add_row(12, 0, c2, v2);
  const ColumnMatrix m = to_columns(s);
  CHECK(m.samples == 3);
  CHECK(m.features() == 4);
  CHECK(m.col_begin == std::vector<std::uint64_t>{0, 2, 3, 6, 6});
  CHECK(m.rows == std::vector<std::uint32_t>{0, 2, 2, 0, 1, 2});
  CHECK(m.values == std::vector<double>{1, 4, 5, 2, 3, 6});
}

TEST_CASE("to_columns on 1-3 threads, direct and by buckets of columns: the plain counting sort's matrix, for all rows and some") {
  // Few columns (scattered straight to their places), columns spread over buckets of 2^k (past
  // 4096), a last bucket cut short, a column holding most entries (a bucket far above its
  // share) and empty columns; enough rows that every thread count gets ranges of its own.
  gyre::ThreadArena arena(3);
  for (const std::uint32_t features : {50u, 4097u, 70001u, 300000u}) {
    CAPTURE(features);
    RegressionSet s;
    s.features = features;
    std::uint64_t state = features;
    auto next = [&state] { return (state = state * 6364136223846793005ULL + 1442695040888963407ULL) >> 33; };
    const std::uint64_t samples = std::max<std::uint64_t>(3000, features / 5);
    for (std::uint64_t i = 0; i < samples; ++i) {
      std::vector<std::uint32_t> cols{7};
      for (int k = 0; k < 20; ++k) cols.push_back(static_cast<std::uint32_t>(next() % features));
      cols.push_back(features - 1);
      std::sort(cols.begin(), cols.end());
      cols.erase(std::unique(cols.begin(), cols.end()), cols.end());
      std::vector<double> values;
      for (const std::uint32_t c : cols) values.push_back(static_cast<double>(i) + c * 1e-7);
      s.add_row(i, 0, cols, values);
    }
    std::vector<std::uint32_t> some;
    for (std::uint32_t i = 0; i < samples; i += 3) some.push_back(i);
    for (const bool all : {true, false}) {
      CAPTURE(all);
      const std::uint64_t count = all ? s.samples() : some.size();
      // Reference: every column's (row, value) list, from the rows in order.
      std::vector<std::vector<std::pair<std::uint32_t, double>>> want(features);
      for (std::uint64_t r = 0; r < count; ++r) {
        const std::uint64_t i = all ? r : some[r];
        for (std::uint64_t k = s.row_begin[i]; k < s.row_begin[i + 1]; ++k)
          want[s.cols[k]].emplace_back(static_cast<std::uint32_t>(r), s.values[k]);
      }
      for (const std::size_t threads : {1u, 2u, 3u}) {
        CAPTURE(threads);
        const ColumnMatrix m = arena.execute([&] { return all ? to_columns(s, threads) : to_columns(s, some, threads); });
        REQUIRE(m.features() == features);
        bool same = m.samples == count && m.rows.size() == m.col_begin.back() && m.values.size() == m.rows.size();
        for (std::uint32_t j = 0; j < features && same; ++j) {
          same = m.col_begin[j + 1] - m.col_begin[j] == want[j].size();
          for (std::uint64_t e = m.col_begin[j]; same && e < m.col_begin[j + 1]; ++e)
            same = m.rows[e] == want[j][e - m.col_begin[j]].first && m.values[e] == want[j][e - m.col_begin[j]].second;
        }
        CHECK(same);
      }
    }
  }
}
