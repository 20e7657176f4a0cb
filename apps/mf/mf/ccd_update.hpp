// apps/mf/mf/ccd_update.hpp — CCD++ on the rotation: one factor column at a time, items' entries summed as their block travels, users' as the blocks visit.
#pragma once

#include <cstdint>
#include <vector>

#include "gyre/model/block.hpp"
#include "gyre/rotation/cell_grid.hpp"
#include "mf/config.hpp"
#include "mf/worker_ratings.hpp"

namespace gyre::mf {

// CCD++ fits column t of the factors by exact rank-one least squares, with the other columns
// fixed: with ê = e + u_t·v_t the rating's residual without column t,
//   v_t(j) = Σ_i ê u_t(i) / Σ_i (λ + u_t(i)²)   over the ratings of item j,
//   u_t(i) = Σ_j ê v_t(j) / Σ_j (λ + v_t(j)²)   over the ratings of user i
// (λ per rating: the objective SGD minimises here, and LIBPMF's). A worker holds all of its
// users' ratings but only visiting blocks of items, so each half is a rotation phase:
// - items: every visit adds its ratings' sums to the block's rows (their tail, below); the
//   block's last visit of the phase has them all, and sets the column;
// - users: every visit adds to the worker's per-user sums; the phase's end sets the column.
// Each rating keeps its residual e. A phase takes the previous phase's change of its column out
// of it as it visits (the change of an item's entry travels in the block's tail), so residuals
// cost no pass of their own; an epoch's first phase takes them afresh from the factors, so that
// a resumed or continued model (which keeps no residuals) goes on from the same state, and
// rounding does not gather over epochs.
//
// Every sum runs in a fixed order (visits in schedule order, cells in diagonal rounds), so a
// run is bitwise the same on every backend and in every process layout of the same P.

// Where training phase `phase` (counted over the model's life) falls in CCD++'s epochs.
struct CcdPhase {
  std::uint32_t column = 0;    // the factor column fitted
  bool items = true;           // its items' entries, or its users'
  bool first = false;          // the epoch's first phase: residuals from the factors
  bool last = false;           // the epoch's last phase
  std::uint32_t previous = 0;  // the column the phase before fitted, whose change is still in the residuals
};
CcdPhase ccd_phase(const MfConfig& c, std::uint64_t phase);

// An item row's tail while CCD++ runs (RowLayout gives every row one under kCcd): the sums of
// the phase's column as two doubles, then the change the last items phase made to the column.
inline constexpr std::size_t kCcdSumsAt = 0;     // floats [0, 4): numerator, denominator (doubles)
inline constexpr std::size_t kCcdChangeAt = 4;   // float 4

// A worker's CCD++ state: a residual per training rating, the users' sums and changes.
class CcdSolver {
 public:
  CcdSolver(const MfConfig& c, std::size_t width, std::size_t stride, std::size_t users, std::uint64_t ratings);

  // One visit of `items` (block `block` of `ratings`) in phase `p`, on the diagonal rounds of
  // the worker's grid. `first_visit` and `last_visit`: the block's first and last visit of the
  // phase. Returns the sum of the squared residuals the visit saw, each before the phase's
  // update (after the previous phase's).
  double visit(const CcdPhase& p, const WorkerRatings& ratings, model::Block& items, float* users,
               rotation::GridLocks& locks, bool first_visit, bool last_visit);
  // Clears the users' sums before a users phase.
  void start_users(const CcdPhase& p);
  // Sets the users' entries of the column from their sums, at the end of a users phase.
  void finish_users(const CcdPhase& p, float* users);

 private:
  double items_cell(const CcdPhase& p, std::span<const LocalRating> cell, float* residuals, float* users,
                    float* items) const;
  double users_cell(const CcdPhase& p, std::span<const LocalRating> cell, float* residuals, float* users,
                    float* items);
  void clear_item_sums(model::Block& items) const;
  void finish_items(const CcdPhase& p, model::Block& items) const;

  float lambda_;
  std::size_t width_;
  std::size_t stride_;
  std::vector<float> residuals_;    // by position in WorkerRatings' layout
  std::vector<double> numerator_;   // by local user: Σ ê v_t
  std::vector<double> denominator_; // Σ λ + v_t²
  std::vector<float> change_;       // the last users phase's change of its column
};

}  // namespace gyre::mf
