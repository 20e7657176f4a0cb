// gyre/data/column_matrix.cpp — X by column from X by row: a stable counting sort, on T ranges of rows at once.
#include "gyre/data/column_matrix.hpp"

#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/partitioner.h>

#include <algorithm>
#include <limits>
#include <stdexcept>

#include "gyre/base/huge_pages.hpp"

namespace gyre::data {
namespace {

// Up to this many columns the counting sort scatters each entry straight to its column: that
// many write positions stay in cache. Beyond it (100k columns: a cache miss per entry, 70 ms of
// a 5M-entry copy) the entries go first to buckets of consecutive columns, few enough to write
// as streams, each bucket in its place in the result, then each bucket, now small enough for
// the cache, is sorted by column in place (a radix sort of two digits: 25 ms for those 5M).
constexpr std::uint32_t kDirectColumns = 4096;
constexpr std::uint32_t kBuckets = 256;

// Each range of rows counts its entries per column into an array of its own, so a range gets a
// task only when it holds at least as many entries as there are columns (the array costs no more
// than the entries it counts), and at least this many (a task's start-up is worth it).
constexpr std::uint64_t kRangeEntries = 4096;

// body(i) for i in [0, n): on the calling thread when n is 1, else one TBB task each.
template <class Body>
void each_range(std::size_t n, const Body& body) {
  if (n == 1) {
    body(std::size_t{0});
    return;
  }
  oneapi::tbb::parallel_for(std::size_t{0}, n, [&](std::size_t i) { body(i); }, oneapi::tbb::simple_partitioner());
}

// `row_of(r)` is the set's row that becomes row r of the result, for r < count.
//
// Rows are cut into ranges of about equal entries, one task each. Every range counts its entries
// per column; a column's entries from range t go after those of ranges 0..t-1, and each range
// walks its rows in order, so each column's rows come out increasing whatever the range count:
// the matrix is the one-thread matrix, bit for bit.
template <class RowOf>
ColumnMatrix columns_of(const RegressionSet& set, std::uint64_t count, RowOf row_of, std::size_t threads) {
  if (count > std::numeric_limits<std::uint32_t>::max())
    throw std::invalid_argument("to_columns: more than 2^32 - 1 samples");
  const std::uint32_t features = set.features;
  const std::size_t F = features;
  auto length = [&](std::uint64_t r) {
    const std::uint64_t i = row_of(r);
    return set.row_begin[i + 1] - set.row_begin[i];
  };
  std::uint64_t nnz = 0;
  for (std::uint64_t r = 0; r < count; ++r) nnz += length(r);
  const auto ranges = static_cast<std::size_t>(std::clamp<std::uint64_t>(
      nnz / std::max<std::uint64_t>(kRangeEntries, features), 1, std::max<std::size_t>(threads, 1)));
  std::vector<std::uint64_t> cut(ranges + 1, count);  // range t is rows [cut[t], cut[t + 1])
  cut[0] = 0;
  std::uint64_t seen = 0;
  for (std::uint64_t r = 0, t = 1; r < count && t < ranges; ++r) {
    seen += length(r);
    while (t < ranges && seen * ranges >= nnz * t) cut[t++] = r + 1;
  }
  auto for_entries = [&](std::size_t t, auto&& entry) {
    for (std::uint64_t r = cut[t]; r < cut[t + 1]; ++r) {
      const std::uint64_t i = row_of(r);
      for (std::uint64_t k = set.row_begin[i]; k < set.row_begin[i + 1]; ++k) entry(r, k);
    }
  };

  std::vector<std::uint64_t> counts(ranges * F);  // range t's entries in column j: counts[t·F + j]
  each_range(ranges, [&](std::size_t t) {
    std::uint64_t* const mine = counts.data() + t * F;
    for_entries(t, [&](std::uint64_t, std::uint64_t k) { ++mine[set.cols[k]]; });
  });
  ColumnMatrix m;
  m.samples = count;
  m.col_begin.assign(F + 1, 0);
  for (std::size_t j = 0; j < F; ++j) {
    std::uint64_t column = 0;
    for (std::size_t t = 0; t < ranges; ++t) column += counts[t * F + j];
    m.col_begin[j + 1] = m.col_begin[j] + column;
  }
  // Written in full next, page by page at random: huge pages spare most of the faults.
  resize_huge(m.rows, nnz);
  resize_huge(m.values, nnz);

  if (features <= kDirectColumns) {
    // counts becomes each range's next place in each column.
    for (std::size_t j = 0; j < F; ++j) {
      std::uint64_t at = m.col_begin[j];
      for (std::size_t t = 0; t < ranges; ++t) {
        const std::uint64_t mine = counts[t * F + j];
        counts[t * F + j] = at;
        at += mine;
      }
    }
    each_range(ranges, [&](std::size_t t) {
      std::uint64_t* const next = counts.data() + t * F;
      for_entries(t, [&](std::uint64_t r, std::uint64_t k) {
        const std::uint64_t at = next[set.cols[k]]++;
        m.rows[at] = static_cast<std::uint32_t>(r);
        m.values[at] = set.values[k];
      });
    });
    return m;
  }

  // Buckets of 2^shift columns (at most 2^16, so a column's place in its bucket fits 16 bits).
  unsigned shift = 0;
  while (shift < 16 && (std::uint64_t{features} >> shift) > kBuckets) ++shift;
  const std::size_t buckets = static_cast<std::size_t>(((std::uint64_t{features} - 1) >> shift) + 1);
  const std::uint32_t low = (std::uint32_t{1} << shift) - 1;
  auto first_column = [&](std::size_t b) { return std::min<std::size_t>(b << shift, F); };
  // Each range's next place in each bucket: next[t·buckets + b].
  std::vector<std::uint64_t> next(ranges * buckets);
  for (std::size_t b = 0; b < buckets; ++b) {
    std::uint64_t at = m.col_begin[first_column(b)];
    for (std::size_t t = 0; t < ranges; ++t) {
      next[t * buckets + b] = at;
      for (std::size_t j = first_column(b); j < first_column(b + 1); ++j) at += counts[t * F + j];
    }
  }
  std::vector<std::uint16_t> within;  // each entry's column within its bucket
  resize_huge(within, nnz);
  each_range(ranges, [&](std::size_t t) {
    std::uint64_t* const mine = next.data() + t * buckets;
    for_entries(t, [&](std::uint64_t r, std::uint64_t k) {
      const std::uint64_t at = mine[set.cols[k] >> shift]++;
      m.rows[at] = static_cast<std::uint32_t>(r);
      m.values[at] = set.values[k];
      within[at] = static_cast<std::uint16_t>(set.cols[k] & low);
    });
  });
  // Each bucket holds its ranges' entries in row order; a stable sort by column keeps it.
  auto sort_buckets = [&](std::size_t from, std::size_t to) {
    std::vector<std::uint32_t> bucket_rows;
    std::vector<double> bucket_values;
    std::vector<std::uint64_t> column_next;
    for (std::size_t b = from; b < to; ++b) {
      const std::uint64_t lo = m.col_begin[first_column(b)], hi = m.col_begin[first_column(b + 1)];
      if (hi - lo < 2) continue;
      bucket_rows.assign(m.rows.begin() + static_cast<std::ptrdiff_t>(lo), m.rows.begin() + static_cast<std::ptrdiff_t>(hi));
      bucket_values.assign(m.values.begin() + static_cast<std::ptrdiff_t>(lo),
                           m.values.begin() + static_cast<std::ptrdiff_t>(hi));
      column_next.assign(m.col_begin.begin() + static_cast<std::ptrdiff_t>(first_column(b)),
                         m.col_begin.begin() + static_cast<std::ptrdiff_t>(first_column(b + 1)));
      for (std::uint64_t e = 0; e < hi - lo; ++e) {
        const std::uint64_t at = column_next[within[lo + e]]++;
        m.rows[at] = bucket_rows[e];
        m.values[at] = bucket_values[e];
      }
    }
  };
  if (ranges == 1) {
    sort_buckets(0, buckets);
  } else {
    oneapi::tbb::parallel_for(oneapi::tbb::blocked_range<std::size_t>(0, buckets),
                              [&](const oneapi::tbb::blocked_range<std::size_t>& r) { sort_buckets(r.begin(), r.end()); });
  }
  return m;
}

}  // namespace

ColumnMatrix to_columns(const RegressionSet& set, std::size_t threads) {
  return columns_of(set, set.samples(), [](std::uint64_t r) { return r; }, threads);
}

ColumnMatrix to_columns(const RegressionSet& set, std::span<const std::uint32_t> rows, std::size_t threads) {
  for (const std::uint32_t i : rows)
    if (i >= set.samples()) throw std::invalid_argument("to_columns: row beyond the set");
  return columns_of(set, rows.size(), [rows](std::uint64_t r) { return std::uint64_t{rows[r]}; }, threads);
}

}  // namespace gyre::data
