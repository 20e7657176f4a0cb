// gyre/rounds/scheduling.hpp — a rounds app's scheduling tools, after STRADS: which parameters a round proposes
// (ParameterSampler: cyclic, random permutation or priority) and the dependency check that keeps only
// candidates nearly uncorrelated with what is in flight, with the inner products x_jᵀx_k it needs.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "gyre/base/export.hpp"
#include "gyre/rounds/rounds.hpp"

namespace gyre::rounds {

// ─── which parameters a round proposes: cyclic, random permutation, or STRADS priority.

enum class ParameterOrder {
  cyclic,    // in index order, U per round: plain (block) coordinate descent
  random,    // a fresh random permutation per sweep, U per round
  priority,  // STRADS: U drawn with probability ∝ |Δ_j| + η, uniform during the warm-up
};

// Weights in a sum tree (a binary heap of partial sums), so drawing ∝ weight and changing one
// weight both cost O(log m).
class GYRE_API SumTree {
 public:
  explicit SumTree(std::uint32_t size);
  void set(std::uint32_t i, double weight);
  // All weights at once, O(size) instead of O(size·log size).
  void assign(std::span<const double> weights);
  double get(std::uint32_t i) const { return tree_[leaves_ + i]; }
  double total() const { return tree_[1]; }
  // The i with prefix(i) ≤ u < prefix(i+1), for u in [0, total()).
  std::uint32_t find(double u) const;

 private:
  std::uint32_t size_, leaves_;
  std::vector<double> tree_;
};

// Proposes candidates; the caller runs the dependency check and reports back with step() the
// change of every coordinate it updated. Coordinates marked in `skip` (in flight, unusable) are
// never proposed.
class GYRE_API ParameterSampler {
 public:
  // Coordinates with usable[j] == 0 are never proposed.
  ParameterSampler(ParameterOrder kind, std::vector<std::uint8_t> usable, double eta, std::uint64_t seed,
                   double warmup_sweeps = 1);

  // Up to `count` distinct coordinates with skip[j] == 0.
  std::vector<std::uint32_t> propose(std::uint32_t count, const std::vector<std::uint8_t>& skip);
  // Coordinate j moved by |delta| (in the fit's coordinates); sets its priority.
  void step(std::uint32_t j, double delta);
  // Candidates the dependency check dropped get their priority back (in order: they are
  // proposed again before the order moves on).
  void restore(std::span<const std::uint32_t> dropped);
  // After a full gradient: every coordinate's priority becomes the step it would take now.
  void reprioritise(std::span<const double> predicted_steps);
  // Whether the priority schedule is still in its uniform warm-up sweep.
  bool warming_up() const noexcept;

  // Everything that decides the proposals to come, for a checkpoint: restore(state()) on a
  // sampler made with the same arguments proposes what this one would (the tree's inner sums
  // are rebuilt from its leaves, which is what set() keeps them equal to, bit for bit).
  struct State {
    std::uint64_t rng = 0;
    std::vector<std::uint32_t> order;
    std::uint32_t cursor = 0;
    std::uint64_t proposed = 0;
    double largest_step = 0;
    std::vector<double> weights;  // the tree's leaves
    std::vector<double> held;
    std::vector<std::uint32_t> deferred;
  };
  State state() const;
  // Throws std::invalid_argument when `s` does not fit this sampler's features.
  void restore(const State& s);

 private:
  std::vector<std::uint32_t> propose_in_order(std::uint32_t count, const std::vector<std::uint8_t>& skip);
  void fill_tree();
  double floor() const noexcept;

  ParameterOrder kind_;
  std::uint32_t features_;
  std::vector<std::uint8_t> usable_;
  std::vector<std::uint8_t> in_round_;  // marks this round's proposals (cleared before returning)
  double eta_;
  std::uint64_t warmup_;               // proposals drawn uniformly before priority sampling
  std::uint64_t rng_;
  std::vector<std::uint32_t> order_;   // cyclic: identity; random and warm-up: a permutation
  std::uint32_t cursor_ = 0;
  std::uint64_t proposed_ = 0;         // over the sampler's life, for the warm-up
  double largest_step_ = 0;
  SumTree weights_;
  std::vector<double> held_;           // priority of each coordinate taken out of the tree
  std::vector<std::uint32_t> deferred_;  // in order: dropped candidates, proposed again first
};

// ─── STRADS's dependency check and where its inner products x_jᵀx_k come from: a shard's rows, or every worker's shard over the rounds engine.

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

// The two questions the dependency check asks (DependencyCheck, below). Rows are numbered
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

// At most this many rows are summed for a Gram column (DependencyCheck, below).
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

// STRADS's dependency check: keep only candidates nearly uncorrelated with what is already in flight.

// Coordinates updated together (in one round, or in rounds still in flight) each step against a
// residual that misses the others' steps; for correlated columns those steps overshoot. So a
// candidate is dropped when |corr(x̃_j, x̃_k)| ≥ ρ for some coordinate k already kept or in flight.
//
// The inner products x_jᵀx_k come from an InnerProducts source (the workers, each over its own
// rows, so the check needs no row in the scheduler's process), asked once per keep(), in one of
// two ways chosen by the width of the data:
//  - Up to gram_features features: a candidate's correlations with every column (a column of
//    the Gram matrix, Xᵀx_j, centred and scaled) are asked for the first time it is looked at
//    and cached, so a check costs one lookup per coordinate in flight, and once the candidates
//    have been seen, no question at all. On narrow, dense data a candidate shares rows with
//    every column in flight, and walking them each time would cost n·|in flight| per candidate.
//    Past kGramRows samples the inner products are estimated from every (n/kGramRows)-th row
//    (standard error about 1/√kGramRows ≈ 0.02 on a correlation): a Gram column costs Σ over
//    the column's rows of the row length, which on dense data is hundreds of coordinate
//    updates' worth of work, and the check only needs to tell a correlation at ρ from a small one.
//  - Wider: the candidates' products with the coordinates in flight and with each other, over
//    the rows they share. A candidate costs its own non-zeros plus the overlaps, the same order
//    as the workers' work on it, where a Gram column costs Σ over its rows of the row length:
//    50× more on a 50-per-row sparse problem, for pairs mostly never looked at. Two columns that
//    share no row have centred correlation −n·μ_j·μ_k/(‖x̃_j‖‖x̃_k‖), which only dense-ish
//    columns with large means make large; in this mode such pairs are treated as uncorrelated.
class GYRE_API DependencyCheck {
 public:
  static constexpr std::uint32_t kGramFeatures = 4096;  // p² floats: at most 64 MiB of cache

  // `samples` rows in all; correlations are of the columns centred by `mean` (all 0: uncentred)
  // and scaled by `inverse_norm` (1/‖x_j − μ_j‖·√n; 0 for a column never proposed). ρ ≥ 1 turns
  // the check off. `source` must outlive this.
  DependencyCheck(InnerProducts& source, std::uint64_t samples, std::vector<double> mean,
                  std::vector<double> inverse_norm, double rho, std::uint32_t gram_features = kGramFeatures);

  bool enabled() const noexcept { return rho_ < 1; }

  // The candidates to keep, in order: each must not be correlated with an in-flight coordinate
  // nor with a candidate kept before it. Kept ones are marked in `busy` and become in flight.
  std::vector<std::uint32_t> keep(std::span<const std::uint32_t> candidates, std::vector<std::uint8_t>& busy);
  // Coordinate j's round is over (call for every kept coordinate, once).
  void release(std::uint32_t j);

 private:
  bool conflicts_by_gram(std::uint32_t j) const;
  void fetch_gram(std::span<const std::uint32_t> fresh);

  InnerProducts& source_;
  double rho_;
  std::uint64_t samples_;
  std::vector<double> mean_;
  std::vector<double> inverse_norm_;            // 1/‖x_j − μ_j‖·√n, 0 if never proposed
  bool gram_ = false;
  std::vector<std::vector<float>> correlations_;  // Gram mode: per looked-at column
  std::vector<std::uint32_t> in_flight_;
  std::vector<std::uint32_t> slot_;              // position in in_flight_
  std::vector<std::uint8_t> flying_;             // per column: in in_flight_
};

}  // namespace gyre::rounds
