// gyre/scheduler/inner_products.hpp — where the dependency check's inner products x_jᵀx_k come from: a shard's rows, or every worker's shard over the rounds engine.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "gyre/base/export.hpp"
#include "gyre/scheduler/rounds_driver.hpp"

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
  // For each candidate j (by position) and each of `others` k ≠ j sharing a row with it,
  // Σ over the rows they share of x_ij·x_ik, ordered by candidate then column.
  virtual std::vector<SharedProduct> shared(std::span<const std::uint32_t> candidates,
                                            std::span<const std::uint32_t> others) = 0;
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
                                    std::span<const std::uint32_t> others) override;

 private:
  struct Entry {
    std::uint32_t column;
    double value;
  };
  SparseLines rows_;
  SparseLines columns_;
  std::vector<std::uint8_t> sampled_;  // per row of the shard
  // A row index of the query's other columns: per row, its entries among them. Rows hold none
  // between queries.
  std::vector<std::vector<Entry>> entries_;
  std::vector<double> dot_;              // per column, all zero between candidates
  std::vector<std::uint8_t> marked_;     // per column: in touched_
  std::vector<std::uint32_t> touched_;
};

// The rounds engine's task kinds that carry the two questions (the app's own kinds, which its
// workers answer with answer_inner_products).
struct InnerProductKinds {
  std::uint8_t gram = 0;
  std::uint8_t shared = 0;
};

// The answers of every worker of `driver`'s job, summed in worker order (the same bits on
// every backend), asked with RoundsDriver::ask between rounds. `features`: the columns there are.
class GYRE_API WorkersInnerProducts final : public InnerProducts {
 public:
  WorkersInnerProducts(RoundsDriver& driver, InnerProductKinds kinds, std::uint32_t features);
  std::vector<std::vector<double>> sampled_gram(std::span<const std::uint32_t> columns) override;
  std::vector<SharedProduct> shared(std::span<const std::uint32_t> candidates,
                                    std::span<const std::uint32_t> others) override;

 private:
  RoundsDriver& driver_;
  InnerProductKinds kinds_;
  std::uint32_t features_;
};

// A worker's answer to a task of kinds.gram (its params: the columns) or kinds.shared (its
// params: the candidates, then the others; its scalar: how many candidates), as values for
// RoundsDriver::ask.
GYRE_API std::vector<double> answer_inner_products(InnerProducts& shard, const Task& task, InnerProductKinds kinds);

}  // namespace gyre::scheduler
