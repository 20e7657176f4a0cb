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
// fixed: with ê = r − Σ_{s≠t} u_s·v_s the rating's residual without column t,
//   v_t(j) = Σ_i ê u_t(i) / Σ_i (λ + u_t(i)²)   over the ratings of item j,
//   u_t(i) = Σ_j ê v_t(j) / Σ_j (λ + v_t(j)²)   over the ratings of user i
// (λ per rating: the objective SGD minimises here, and LIBPMF's). A worker holds all of its
// users' ratings but only visiting blocks of items, so each half is a rotation phase:
// - items: every visit adds its ratings' sums to the block's rows (their tail, below); the
//   block's last visit of the phase has them all, and sets the column;
// - users: every visit adds to the worker's per-user sums; the phase's end sets the column.
// Each rating keeps ê for the column being fitted: it does not change while the column's
// entries do, so only a column's first phase writes it (taking the previous column's final
// product out and the new column's in), and every other phase only reads it. An epoch's first
// phase takes it afresh from the factors, so that a resumed or continued model (which keeps no
// residuals) goes on from the same state, and rounding does not gather over epochs.
//
// Every sum runs in a fixed order (visits in schedule order, cells in diagonal rounds), so a
// run is bitwise the same on every backend and in every process layout of the same P.

// Where training phase `phase` (counted over the model's life) falls in CCD++'s epochs.
struct CcdPhase {
  std::uint32_t column = 0;    // the factor column fitted
  bool items = true;           // its items' entries, or its users'
  bool first = false;          // the epoch's first phase: residuals from the factors
  bool opens_column = false;   // the column's first phase: residuals move from the previous column to it
  bool last = false;           // the epoch's last phase
  std::uint32_t previous = 0;  // the column fitted before (when opens_column and not first)
};
CcdPhase ccd_phase(const MfConfig& c, std::uint64_t phase);

// An item row's tail while CCD++ runs (RowLayout gives every row one under kCcd): an items
// phase's sums so far, as two doubles.
inline constexpr std::size_t kCcdSumsAt = 0;  // floats [0, 4)

// A row's sums of a column's fit: Σ ê·(the other side's entry), Σ λ + (its square).
struct CcdSums {
  double numerator;
  double denominator;
};

// A worker's CCD++ state: a residual per training rating, the users' sums, and the columns a
// phase reads laid out densely (rows are `stride` floats apart: reading one entry of a row per
// rating would read a cache line per rating; the dense columns are read in order).
class CcdSolver {
 public:
  CcdSolver(const MfConfig& c, std::size_t width, std::size_t stride, std::size_t users, std::uint64_t ratings);

  // Before phase `p`'s first visit: takes the users' entries it reads (and clears their sums
  // before a users phase).
  void start_phase(const CcdPhase& p, const float* users);
  // One visit of `items` (block `block` of `ratings`) in phase `p`, on the diagonal rounds of
  // the worker's grid. `first_visit` and `last_visit`: the block's first and last visit of the
  // phase. Returns the sum of the squared residuals the visit saw, each before the phase's
  // update, in the epoch's last phase (0 in the others).
  double visit(const CcdPhase& p, const WorkerRatings& ratings, model::Block& items, const float* users,
               rotation::GridLocks& locks, bool first_visit, bool last_visit);
  // Sets the users' entries of the column from their sums, at the end of a users phase.
  void finish_users(const CcdPhase& p, float* users);

 private:
  using Sums = CcdSums;
  // A visit's view of an item, by block row, in one place: a rating reads and adds to all of it.
  struct ItemEntry {
    Sums sums;       // items phases
    float column;    // the column's entry
    float previous;  // the previous column's (a phase that opens a column)
  };
  void take_items(const CcdPhase& p, const model::Block& items, bool first_visit);
  void put_items(const CcdPhase& p, model::Block& items, bool last_visit) const;
  // `items`: the visiting block's rows.
  double items_cell(const CcdPhase& p, const Cell& cell, float* residuals, const float* users, const float* items);
  double users_cell(const CcdPhase& p, const Cell& cell, const float* residuals);

  float lambda_;
  std::size_t width_;
  std::size_t stride_;
  std::vector<float> residuals_;        // ê, by position in WorkerRatings' layout
  std::vector<float> user_column_;      // by local user: the phase's column
  std::vector<float> user_previous_;    // the previous column, when the phase opens one
  std::vector<Sums> user_sums_;         // by local user, in a users phase
  std::vector<ItemEntry> items_;        // by row of the visiting block
};

}  // namespace gyre::mf
