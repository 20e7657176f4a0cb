// tests/lib/rounds/rounds_parts_test.cpp — the rounds engine's pieces alone: the parameter sampler, the dependency check, the round messages.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <deque>
#include <map>
#include <optional>
#include <set>

#include <cereal/types/tuple.hpp>

#include "gyre/data/column_matrix.hpp"
#include "gyre/data/regression.hpp"
#include "gyre/data/regression_partition.hpp"
#include "gyre/rounds/scheduling.hpp"
#include "gyre/rounds/rounds_protocol.hpp"
#include "gyre/wire/codec.hpp"

using namespace gyre;
using namespace gyre::rounds;

namespace {

SparseLines rows_of(const data::RegressionSet& set) { return {set.row_begin, set.cols, set.values}; }
SparseLines columns_of(const data::ColumnMatrix& columns) { return {columns.col_begin, columns.rows, columns.values}; }

// Each column's mean and 1/‖x_j − μ_j‖·√n (0 for a constant column), summed directly.
struct Moments {
  std::vector<double> mean, inverse_norm;
};
Moments centred_moments(const data::ColumnMatrix& columns) {
  const auto m = columns.features();
  const double n = static_cast<double>(columns.samples);
  Moments out{std::vector<double>(m, 0.0), std::vector<double>(m, 0.0)};
  for (std::uint32_t j = 0; j < m; ++j) {
    const std::uint64_t b = columns.col_begin[j], e = columns.col_begin[j + 1];
    for (std::uint64_t k = b; k < e; ++k) out.mean[j] += columns.values[k] / n;
    double ss = static_cast<double>(columns.samples - (e - b)) * out.mean[j] * out.mean[j];  // the zeros
    for (std::uint64_t k = b; k < e; ++k) ss += (columns.values[k] - out.mean[j]) * (columns.values[k] - out.mean[j]);
    if (ss > 1e-12) out.inverse_norm[j] = std::sqrt(n / ss);
  }
  return out;
}

// The inner products of a whole set, one source over its rows.
struct WholeSet {
  explicit WholeSet(const data::RegressionSet& set)
      : columns(data::to_columns(set)), source(rows_of(set), columns_of(columns), set.sample_ids, set.samples()) {}
  data::ColumnMatrix columns;
  ShardInnerProducts source;
};

// The same set's rows dealt into shards, each answering over its own rows; their answers summed
// in shard order (SummedInnerProducts, as WorkersInnerProducts sums the workers'), in batches as
// workers are asked, or `at_once` as the scheduler's own shards answer. Counts the batches.
class ShardedSource final : public InnerProducts {
 public:
  ShardedSource(const data::RegressionSet& set, std::uint32_t parts, bool at_once = false)
      : at_once_(at_once), shards_(data::shard_rows(set, parts)) {
    for (const auto& shard : shards_) columns_.push_back(data::to_columns(shard));
    for (std::size_t s = 0; s < shards_.size(); ++s)
      sources_.emplace_back(rows_of(shards_[s]), columns_of(columns_[s]), shards_[s].sample_ids, set.samples());
    std::vector<ShardInnerProducts*> each;
    for (auto& source : sources_) each.push_back(&source);
    summed_.emplace(std::move(each), set.features);
  }
  std::vector<std::vector<double>> sampled_gram(std::span<const std::uint32_t> columns) override {
    ++questions;
    return summed_->sampled_gram(columns);
  }
  std::vector<SharedProduct> shared(std::span<const std::uint32_t> candidates,
                                    std::span<const std::uint32_t> in_flight) override {
    ++questions;
    return summed_->shared(candidates, in_flight);
  }
  bool answers_at_once() const override { return at_once_; }
  void fly(std::uint32_t k) override { summed_->fly(k); }
  void land(std::uint32_t k) override { summed_->land(k); }
  void products_in_flight(std::uint32_t j, std::vector<SharedProduct>& out) override {
    summed_->products_in_flight(j, out);
  }
  int questions = 0;

 private:
  bool at_once_;
  std::vector<data::RegressionSet> shards_;
  std::vector<data::ColumnMatrix> columns_;
  std::deque<ShardInnerProducts> sources_;  // not moved once made: summed_ points at them
  std::optional<SummedInnerProducts> summed_;
};

// x_jᵀx_k summed directly over dense copies of the columns.
double dense_dot(const data::RegressionSet& set, std::uint32_t j, std::uint32_t k, std::uint64_t stride = 1) {
  double sum = 0;
  for (std::uint64_t i = 0; i < set.samples(); i += stride) {
    double a = 0, b = 0;
    for (std::uint64_t e = set.row_begin[i]; e < set.row_begin[i + 1]; ++e) {
      if (set.cols[e] == j) a = set.values[e];
      if (set.cols[e] == k) b = set.values[e];
    }
    sum += a * b;
  }
  return sum;
}

}  // namespace

TEST_CASE("the cyclic and random schedules cover every usable coordinate once per sweep") {
  std::vector<std::uint8_t> usable(23, 1);
  usable[5] = 0;
  std::vector<std::uint8_t> skip(23, 0);
  for (auto kind : {ParameterOrder::cyclic, ParameterOrder::random}) {
    ParameterSampler s(kind, usable, 1e-6, 3);
    std::vector<std::uint32_t> seen;
    while (seen.size() < 22) {
      const auto got = s.propose(4, skip);
      REQUIRE(!got.empty());
      seen.insert(seen.end(), got.begin(), got.end());
    }
    std::set<std::uint32_t> distinct(seen.begin(), seen.begin() + 22);
    CHECK(distinct.size() == 22);
    CHECK(distinct.count(5) == 0);
    if (kind == ParameterOrder::cyclic) CHECK(std::is_sorted(seen.begin(), seen.begin() + 22));
  }
}

TEST_CASE("the priority schedule warms up uniformly, then draws ∝ |Δβ| + η and never an in-flight coordinate") {
  const std::uint32_t m = 8;
  ParameterSampler s(ParameterOrder::priority, std::vector<std::uint8_t>(m, 1), 1e-3, 5);
  std::vector<std::uint8_t> skip(m, 0);
  CHECK(s.warming_up());
  std::set<std::uint32_t> warm;
  for (std::uint32_t j : s.propose(m, skip)) warm.insert(j);
  CHECK(warm.size() == m);
  CHECK(!s.warming_up());
  // Steps: coordinate 3 moved 3 times as far as coordinate 6, the rest not at all.
  for (std::uint32_t j = 0; j < m; ++j) s.step(j, j == 3 ? 0.3 : j == 6 ? 0.1 : 0.0);
  std::map<std::uint32_t, int> count;
  for (int draw = 0; draw < 4000; ++draw) {
    const auto got = s.propose(1, skip);
    REQUIRE(got.size() == 1);
    ++count[got[0]];
    s.restore(got);
  }
  CHECK(count[3] > 2.4 * count[6]);
  CHECK(count[3] < 3.6 * count[6]);
  CHECK(count[3] + count[6] > 3800);  // the floor (1e-3 of the largest step) is rarely drawn
  // An in-flight coordinate is not proposed; one round never holds a coordinate twice.
  skip[3] = 1;
  for (int round = 0; round < 200; ++round) {
    const auto got = s.propose(4, skip);
    CHECK(std::find(got.begin(), got.end(), 3u) == got.end());
    CHECK(std::set<std::uint32_t>(got.begin(), got.end()).size() == got.size());
    s.restore(got);
  }
}

TEST_CASE("a sampler restored from another's state proposes what that one does, on every schedule") {
  const std::uint32_t m = 50;
  std::vector<std::uint8_t> usable(m, 1);
  usable[7] = 0;
  const std::vector<std::uint8_t> none(m, 0);
  for (const ParameterOrder kind : {ParameterOrder::cyclic, ParameterOrder::random, ParameterOrder::priority}) {
    ParameterSampler a(kind, usable, 1e-3, 11, 0.5);
    // Some history: proposals, steps, a dropped candidate, a reprioritisation.
    for (int round = 0; round < 9; ++round) {
      const auto picked = a.propose(8, none);
      for (std::size_t i = 1; i < picked.size(); ++i) a.step(picked[i], 0.01 * (picked[i] % 5));
      if (!picked.empty()) a.restore(std::span<const std::uint32_t>(picked.data(), 1));
      if (round == 4) {
        std::vector<double> predicted(m);
        for (std::uint32_t j = 0; j < m; ++j) predicted[j] = 0.001 * ((j * 7) % 13);
        a.reprioritise(predicted);
      }
    }
    ParameterSampler b(kind, usable, 1e-3, 11, 0.5);
    b.restore(a.state());
    for (int round = 0; round < 12; ++round) {
      const auto pa = a.propose(8, none);
      CHECK(pa == b.propose(8, none));
      for (const std::uint32_t j : pa) {
        a.step(j, 0.02 * (j % 3));
        b.step(j, 0.02 * (j % 3));
      }
    }
    CHECK_THROWS_AS(ParameterSampler(kind, std::vector<std::uint8_t>(m + 1, 1), 1e-3, 11).restore(a.state()),
                    std::invalid_argument);
  }
}

TEST_CASE("the dependency check drops candidates correlated with kept or in-flight coordinates") {
  // Columns: 0 and 1 equal, 2 = 0 plus noise (corr ≈ 0.9), 3 unrelated, 4 all zero.
  data::RegressionSet set;
  set.features = 5;
  const double noise[] = {0.3, -0.2, 0.1, -0.4, 0.2, 0.0};
  const double other[] = {1, -1, 0, 2, 0, -1};
  for (std::uint32_t i = 0; i < 6; ++i) {
    const double a = i % 2 ? 1.0 + i : -1.0 * i;
    std::vector<std::uint32_t> cols;
    std::vector<double> vals;
    auto put = [&](std::uint32_t c, double v) {
      if (v != 0) {
        cols.push_back(c);
        vals.push_back(v);
      }
    };
    put(0, a);
    put(1, a);
    put(2, a + noise[i]);
    put(3, other[i]);
    set.add_row(i, 1.0, cols, vals);
  }
  const auto columns = data::to_columns(set);
  const Moments moments = centred_moments(columns);
  CHECK(moments.inverse_norm[4] == 0);
  // Gram mode and the wide mode (forced by a Gram limit of 0), over the whole set and over its
  // rows in 1 to 3 shards: the same decisions.
  for (const std::uint32_t gram_features : {DependencyCheck::kGramFeatures, 0u}) {
    for (const auto& shards : {std::pair{1u, false}, {2u, false}, {3u, false}, {1u, true}, {3u, true}}) {
      const unsigned parts = shards.first;
      const bool at_once = shards.second;
      CAPTURE(gram_features);
      CAPTURE(parts);
      CAPTURE(at_once);
      ShardedSource source(set, parts, at_once);
      DependencyCheck check(source, set.samples(), moments.mean, moments.inverse_norm, 0.5, gram_features);
      std::vector<std::uint8_t> busy(5, 0);
      const std::vector<std::uint32_t> all{0, 1, 2, 3};
      CHECK(check.keep(all, busy) == std::vector<std::uint32_t>{0, 3});
      CHECK(busy == std::vector<std::uint8_t>{1, 0, 0, 1, 0});
      // With 0 in flight, 1 and 2 still wait; once it is done, 1 goes.
      CHECK(check.keep(std::vector<std::uint32_t>{1, 2}, busy).empty());
      busy[0] = 0;
      check.release(0);
      CHECK(check.keep(std::vector<std::uint32_t>{1, 2}, busy) == std::vector<std::uint32_t>{1});
      // ρ ≥ 1: no check at all, and no question asked.
      const int asked = source.questions;
      DependencyCheck off(source, set.samples(), moments.mean, moments.inverse_norm, 1.0, gram_features);
      std::vector<std::uint8_t> none(5, 0);
      CHECK(off.keep(all, none) == all);
      CHECK(source.questions == asked);
    }
  }
  // Gram columns are asked for once per column: candidates seen before cost no question.
  ShardedSource source(set, 2);
  DependencyCheck check(source, set.samples(), moments.mean, moments.inverse_norm, 0.5);
  std::vector<std::uint8_t> busy(5, 0);
  check.keep(std::vector<std::uint32_t>{0, 3}, busy);
  CHECK(source.questions == 1);
  for (const std::uint32_t j : {0u, 3u}) busy[j] = 0, check.release(j);
  check.keep(std::vector<std::uint32_t>{3, 0}, busy);
  CHECK(source.questions == 1);
}

TEST_CASE("a shard's inner products, summed over shards, are the whole matrix's: shared rows and sampled Gram columns") {
  // 5000 rows (past kGramRows: Gram columns sample every third row) of 40 sparse columns.
  data::RegressionSet set;
  set.features = 40;
  std::uint64_t state = 7;
  const auto next = [&] { return state = state * 6364136223846793005ULL + 1442695040888963407ULL; };
  for (std::uint64_t i = 0; i < 5000; ++i) {
    std::vector<std::uint32_t> cols;
    std::vector<double> vals;
    for (std::uint32_t j = 0; j < 40; ++j)
      if (next() % 8 == 0) {
        cols.push_back(j);
        vals.push_back(static_cast<double>(static_cast<std::int64_t>(next() % 2001) - 1000) / 256.0);  // exact sums
      }
    set.add_row(i, 0.0, cols, vals);
  }
  const std::uint64_t stride = gram_stride(set.samples());
  CHECK(stride == 3);
  const std::vector<std::uint32_t> candidates{3, 17, 39}, in_flight{0, 5, 21};
  WholeSet whole(set);
  const auto whole_gram = whole.source.sampled_gram(candidates);
  // Pairs come grouped by candidate; within one, in any order: compared sorted.
  const auto by_pair = [](std::vector<SharedProduct> v) {
    std::sort(v.begin(), v.end(), [](const SharedProduct& a, const SharedProduct& b) {
      return std::pair(a.candidate, a.column) < std::pair(b.candidate, b.column);
    });
    return v;
  };
  const auto whole_shared = by_pair(whole.source.shared(candidates, in_flight));
  for (const std::uint32_t parts : {1u, 3u, 4u}) {
    CAPTURE(parts);
    ShardedSource sharded(set, parts);
    // Values on a 1/256 grid and few enough of them: every order of summation gives the same bits.
    CHECK(sharded.sampled_gram(candidates) == whole_gram);
    const auto shared = by_pair(sharded.shared(candidates, in_flight));
    REQUIRE(shared.size() == whole_shared.size());
    for (std::size_t i = 0; i < shared.size(); ++i) {
      CHECK(shared[i].candidate == whole_shared[i].candidate);
      CHECK(shared[i].column == whole_shared[i].column);
      CHECK(shared[i].dot == whole_shared[i].dot);
    }
  }
  for (std::size_t c = 0; c < candidates.size(); ++c)
    for (std::uint32_t k = 0; k < 40; ++k) CHECK(whole_gram[c][k] == dense_dot(set, candidates[c], k, stride));
  for (const SharedProduct& p : whole_shared) {
    CHECK(p.column != candidates[p.candidate]);
    CHECK(p.dot == dense_dot(set, candidates[p.candidate], p.column));
  }
  // Every pair sharing a row is there, a candidate with each column in flight and each earlier
  // candidate (and no other pair).
  std::size_t sharing = 0;
  for (std::size_t c = 0; c < candidates.size(); ++c) {
    std::vector<std::uint32_t> compared(in_flight.begin(), in_flight.end());
    compared.insert(compared.end(), candidates.begin(), candidates.begin() + static_cast<std::ptrdiff_t>(c));
    for (const std::uint32_t k : compared) {
      bool share = false;
      for (std::uint64_t i = 0; i < set.samples() && !share; ++i) {
        const auto cols = set.row_cols(i);
        share = std::binary_search(cols.begin(), cols.end(), candidates[c]) &&
                std::binary_search(cols.begin(), cols.end(), k);
      }
      sharing += share;
    }
  }
  for (const SharedProduct& p : whole_shared)
    CHECK((std::find(in_flight.begin(), in_flight.end(), p.column) != in_flight.end() ||
           std::find(candidates.begin(), candidates.begin() + p.candidate, p.column) != candidates.begin() + p.candidate));
  CHECK(whole_shared.size() == sharing);
}

TEST_CASE("round messages survive encoding, and malformed ones are refused before any allocation") {
  RoundRequest r;
  r.round = 42;
  r.task.kind = 0;
  r.task.scalar = -0.25;
  r.updates = {{3, 0.5}, {7, -1e-9}};
  r.task.params = {1, 2, 9};
  const RoundsLimits limits{10, 2};
  const auto m = encode_request(r);
  const auto back = decode_request(m, limits);
  CHECK(back.round == 42);
  CHECK(back.task.scalar == -0.25);
  REQUIRE(back.updates.size() == 2);
  CHECK(back.updates[1].param == 7);
  CHECK(back.updates[1].delta == -1e-9);
  CHECK(back.task.params == r.task.params);
  CHECK_THROWS_AS(decode_request(m, RoundsLimits{9, 2}), wire::DecodeError);  // parameter 9 of 9

  net::Message short_body = encode_request(r);
  short_body.body = Buffer(short_body.body.size() - 4);
  CHECK_THROWS_AS(decode_request(short_body, limits), wire::DecodeError);
  net::Message huge = encode_request(r);
  huge.meta = wire::encode(std::make_tuple(std::uint64_t{1}, std::uint8_t{0}, 0.0, std::uint32_t{0xFFFFFFFF},
                                           std::uint32_t{0xFFFFFFFF}));
  CHECK_THROWS_AS(decode_request(huge, limits), wire::DecodeError);
  net::Message bad_kind = encode_request(r);
  bad_kind.meta = wire::encode(std::make_tuple(std::uint64_t{1}, std::uint8_t{9}, 0.0, std::uint32_t{2}, std::uint32_t{3}));
  CHECK_THROWS_AS(decode_request(bad_kind, limits), wire::DecodeError);
  net::Message nan_scalar = encode_request(r);
  nan_scalar.meta = wire::encode(std::make_tuple(std::uint64_t{1}, std::uint8_t{0}, std::nan(""), std::uint32_t{2},
                                                 std::uint32_t{3}));
  CHECK_THROWS_AS(decode_request(nan_scalar, limits), wire::DecodeError);

  RoundPartial s{5, {1.5, -2.5}};
  const auto sm = encode_partial(s);
  CHECK(decode_partial(sm, 2, true).values == s.values);
  CHECK_THROWS_AS(decode_partial(sm, 3, true), wire::DecodeError);
  RoundPartial inf{5, {1.5, std::numeric_limits<double>::infinity()}};
  CHECK_THROWS_AS(decode_partial(encode_partial(inf), 2, true), wire::DecodeError);
  CHECK(std::isinf(decode_partial(encode_partial(inf), 2, false).values[1]));  // an app's own choice
}
