// gyre/rounds/inner_products.hpp — where the dependency check's inner products x_jᵀx_k come from: a shard's rows, or every worker's shard over the rounds engine.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "gyre/base/export.hpp"
#include "gyre/rounds/rounds_driver.hpp"

namespace gyre::scheduler {

// A sparse matrix one way round, CSR by rows or CSC by columns: line k holds index[e] and
// values[e] for e in [begin[k], begin[k + 1]), indices increasing.
struct SparseLines {
  std::span<const std::uint64_t> begin;
  std::span<const std::uint32_t> index;
  std::span<const double> values;
  std::uint64_t lines() const noexcept { return begin.empty() ? 0 : begin.size() - 1; }
};

// x_jᵀx_k over the rows that hold both, for candidate `candidate` (its position in the query)
// and column `column`.
struct SharedProduct {
  std::uint32_t candidate = 0;
  std::uint32_t column = 0;
  double dot = 0;
};

// The two questions the dependency check asks (see dependency_check.hpp). Rows are numbered
// 0..samples−1 over the whole data set; a sampled row is one whose number is a multiple of
// gram_stride(samples).
class GYRE_API InnerProducts {
 public:
  virtual ~InnerProducts() = default;
  // For each of `columns`, Σ over the sampled rows of x_ij·x_ik for every column k (dense).
  virtual std::vector<std::vector<double>> sampled_gram(std::span<const std::uint32_t> columns) = 0;
  // For each candidate j (by position) and each column k ≠ j sharing a row with it that is in
  // `in_flight` or an earlier candidate, Σ over the rows they share of x_ij·x_ik, grouped by
  // candidate in candidate order: what keep() compares j with.
  virtual std::vector<SharedProduct> shared(std::span<const std::uint32_t> candidates,
                                            std::span<const std::uint32_t> in_flight) = 0;

  // A source in the scheduler's own process may answer one candidate at a time instead, against
  // the columns it has been told fly (cheaper than shared(): a dropped candidate is never
  // indexed, and nothing is compared with it). Never mixed with shared() on one source.
  virtual bool answers_at_once() const { return false; }
  // Column k is in flight / is no longer.
  virtual void fly(std::uint32_t) {}
  virtual void land(std::uint32_t) {}
  // j's products with the columns in flight that share a row with it (candidate 0), appended.
  virtual void products_in_flight(std::uint32_t, std::vector<SharedProduct>&) {}
};

// At most this many rows are summed for a Gram column (see dependency_check.hpp).
inline constexpr std::uint64_t kGramRows = 2048;
constexpr std::uint64_t gram_stride(std::uint64_t samples) { return samples == 0 ? 1 : (samples + kGramRows - 1) / kGramRows; }

// The answers over one shard of rows, as a worker gives them: `rows` and `columns` are the
// shard both ways round, `row_ids` each row's number in the whole set, `samples` the whole
// set's row count. What they view must outlive this.
class GYRE_API ShardInnerProducts final : public InnerProducts {
 public:
  ShardInnerProducts(SparseLines rows, SparseLines columns, std::span<const std::uint64_t> row_ids,
                     std::uint64_t samples);
  std::vector<std::vector<double>> sampled_gram(std::span<const std::uint32_t> columns) override;
  std::vector<SharedProduct> shared(std::span<const std::uint32_t> candidates,
                                    std::span<const std::uint32_t> in_flight) override;
  bool answers_at_once() const override { return true; }
  void fly(std::uint32_t k) override { enter(k); }
  void land(std::uint32_t k) override;
  void products_in_flight(std::uint32_t j, std::vector<SharedProduct>& out) override { compare(j, 0, out); }

 private:
  // Appends j's products with the indexed columns, as candidate c.
  void compare(std::uint32_t j, std::uint32_t c, std::vector<SharedProduct>& out);
  struct Entry {
    std::uint32_t column;
    double value;
  };
  SparseLines rows_;
  SparseLines columns_;
  std::vector<std::uint8_t> sampled_;  // per row of the shard
  // A row index of the columns a candidate is compared with: per row, its entries among them.
  // It is kept from one question to the next, as most of what is in flight for one was for the
  // one before (the candidates kept then): only the columns that left or joined are walked.
  void enter(std::uint32_t k);
  void leave(std::uint32_t k);
  // Per row: how many indexed columns hold it, the first of them inline and the rest aside (on
  // sparse data most rows hold none or one: the walk stays in two flat arrays).
  std::vector<std::uint32_t> occupants_;
  std::vector<Entry> first_;
  std::vector<std::vector<Entry>> more_;
  std::vector<std::uint8_t> indexed_;         // per column: in entries_
  std::vector<std::uint32_t> indexed_list_;
  std::vector<std::uint32_t> slot_;           // per indexed column: its place in indexed_list_
  std::vector<std::uint8_t> wanted_;          // per column, scratch
  std::vector<double> dot_;              // per column, all zero between candidates
  std::vector<std::uint8_t> marked_;     // per column: in touched_
  std::vector<std::uint32_t> touched_;
};

// Shards' products (each grouped by candidate, in candidate order) summed candidate by
// candidate, per column in shard order; the scratch is kept from one fold to the next.
class GYRE_API ProductSums {
 public:
  explicit ProductSums(std::uint32_t features) : features_(features) {}
  void fold(const std::vector<std::vector<SharedProduct>>& shards, std::size_t candidates,
            std::vector<SharedProduct>& out);

 private:
  std::uint32_t features_;
  std::vector<double> sum_;
  std::vector<std::uint8_t> seen_;
  std::vector<std::uint32_t> touched_;
  std::vector<std::size_t> at_;
};

// The answers of several shards summed in shard order: the scheduler's own, when the workers'
// rows are in its process (a job on threads), with the bits WorkersInnerProducts gets from
// workers holding the same shards. The shards must outlive this.
class GYRE_API SummedInnerProducts final : public InnerProducts {
 public:
  SummedInnerProducts(std::vector<ShardInnerProducts*> shards, std::uint32_t features);
  std::vector<std::vector<double>> sampled_gram(std::span<const std::uint32_t> columns) override;
  std::vector<SharedProduct> shared(std::span<const std::uint32_t> candidates,
                                    std::span<const std::uint32_t> in_flight) override;
  bool answers_at_once() const override { return true; }
  void fly(std::uint32_t k) override;
  void land(std::uint32_t k) override;
  void products_in_flight(std::uint32_t j, std::vector<SharedProduct>& out) override;

 private:
  std::vector<ShardInnerProducts*> shards_;
  std::uint32_t features_;
  ProductSums sums_;
  std::vector<std::vector<SharedProduct>> parts_;  // scratch, per shard
};

// The rounds engine's task kinds that carry the two questions (the app's own kinds, which its
// workers answer with answer_inner_products).
struct InnerProductKinds {
  std::uint8_t gram = 0;
  std::uint8_t shared = 0;
};

// The answers of every worker of `driver`'s job, summed in worker order (the same bits on
// every backend, and as SummedInnerProducts over the same shards), asked with
// RoundsDriver::ask between rounds. `features`: the columns there are.
class GYRE_API WorkersInnerProducts final : public InnerProducts {
 public:
  WorkersInnerProducts(RoundsDriver& driver, InnerProductKinds kinds, std::uint32_t features);
  std::vector<std::vector<double>> sampled_gram(std::span<const std::uint32_t> columns) override;
  std::vector<SharedProduct> shared(std::span<const std::uint32_t> candidates,
                                    std::span<const std::uint32_t> in_flight) override;

 private:
  [[noreturn]] void bad_answer(std::size_t worker, const std::string& why);
  RoundsDriver& driver_;
  InnerProductKinds kinds_;
  std::uint32_t features_;
  ProductSums sums_;
};

// A worker's answer to a task of kinds.gram (its params: the columns; the answer: their Gram
// columns one after another) or kinds.shared (its params: the candidates, then the columns in
// flight; its scalar: how many candidates; the answer: (key, dot) pairs, key = candidate·2³² +
// column, exact in a double), as values for RoundsDriver::ask.
GYRE_API std::vector<double> answer_inner_products(InnerProducts& shard, const Task& task, InnerProductKinds kinds);

}  // namespace gyre::scheduler
