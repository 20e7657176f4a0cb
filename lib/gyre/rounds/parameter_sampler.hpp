// gyre/rounds/parameter_sampler.hpp — which parameters a round proposes: cyclic, random permutation, or STRADS priority.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "gyre/base/export.hpp"

namespace gyre::rounds {

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

}  // namespace gyre::rounds
