// apps/mf/ccd_update.cpp — CCD++'s rank-one updates over a visiting block and the worker's users.
#include "mf/ccd_update.hpp"

#include <oneapi/tbb/parallel_for.h>

#include <cstring>
#include <numeric>

namespace gyre::mf {
namespace {

// The tail holds an item's sums while an items phase gathers them (doubles: a column's sums run
// over up to millions of ratings).
CcdSums load_sums(const float* tail) {
  CcdSums s{};
  std::memcpy(&s, tail + kCcdSumsAt, sizeof s);
  return s;
}
void store_sums(float* tail, const CcdSums& s) { std::memcpy(tail + kCcdSumsAt, &s, sizeof s); }
static_assert(sizeof(CcdSums) + kCcdSumsAt * sizeof(float) <= model::kRowAlign * sizeof(float),
              "the sums fit in the tail");

float dot(const float* a, const float* b, std::size_t n) {
  float s = 0;
  for (std::size_t k = 0; k < n; ++k) s += a[k] * b[k];
  return s;
}

}  // namespace

CcdPhase ccd_phase(const MfConfig& c, std::uint64_t phase) {
  const std::uint64_t per = c.train_phases_per_epoch();
  const std::uint64_t sub = phase % per;
  const std::uint64_t halves = 2 * std::uint64_t{c.ccd_inner};  // phases per column
  CcdPhase p;
  p.column = static_cast<std::uint32_t>(sub / halves);
  p.items = sub % 2 == 0;
  p.first = sub == 0;
  p.opens_column = sub % halves == 0;
  p.last = sub == per - 1;
  p.previous = p.column > 0 ? p.column - 1 : 0;
  return p;
}

CcdSolver::CcdSolver(const MfConfig& c, std::size_t width, std::size_t stride, std::size_t users, std::uint64_t ratings)
    : lambda_(c.lambda),
      width_(width),
      stride_(stride),
      residuals_(ratings, 0.0f),
      user_column_(users, 0.0f),
      user_previous_(users, 0.0f),
      user_sums_(users, Sums{}) {}

void CcdSolver::start_phase(const CcdPhase& p, const float* users) {
  // A users phase reads the column its items phase read, unchanged since.
  if (!p.items) {
    std::fill(user_sums_.begin(), user_sums_.end(), Sums{});
    return;
  }
  for (std::size_t i = 0; i < user_column_.size(); ++i) user_column_[i] = users[i * stride_ + p.column];
  if (p.opens_column && !p.first)
    for (std::size_t i = 0; i < user_previous_.size(); ++i) user_previous_[i] = users[i * stride_ + p.previous];
}

void CcdSolver::take_items(const CcdPhase& p, const model::Block& items, bool first_visit) {
  items_.resize(items.rows());
  for (std::size_t row = 0; row < items.rows(); ++row) {
    const float* v = items.row(row);
    // The sums so far travel in the tail; the phase's first visit starts them.
    const Sums sums = p.items && !first_visit ? load_sums(v + width_) : Sums{};
    items_[row] = ItemEntry{sums, v[p.column], v[p.previous]};
  }
}

void CcdSolver::put_items(const CcdPhase& p, model::Block& items, bool last_visit) const {
  if (!p.items) return;
  for (std::size_t row = 0; row < items.rows(); ++row) {
    float* v = items.row(row);
    const Sums& s = items_[row].sums;
    if (!last_visit)
      store_sums(v + width_, s);
    else if (s.denominator > 0)  // else no rating anywhere (or λ = 0 and the users' column all zero): the entry stays
      v[p.column] = static_cast<float>(s.numerator / s.denominator);
  }
}

double CcdSolver::items_cell(const CcdPhase& p, const Cell& c, float* residuals, const float* users,
                             const float* block_items) {
  double loss = 0;
  const double lambda = lambda_;
  const std::span<const CellRating> cell = c.ratings;
  ItemEntry* entries = items_.data() + c.first_row;
  const float* items = block_items + std::size_t{c.first_row} * stride_;
  for (std::size_t k = 0; k < cell.size(); ++k) {
    const CellRating& r = cell[k];
    ItemEntry& item = entries[r.row];
    float& e = residuals[k];
    const float ut = user_column_[r.user], vt = item.column;
    // The residual without this column: from the factors, or from the previous column's.
    if (p.first)
      e = r.value - dot(users + std::size_t{r.user} * stride_, items + std::size_t{r.row} * stride_, width_) + ut * vt;
    else if (p.opens_column)
      e = e - user_previous_[r.user] * item.previous + ut * vt;
    // Only the epoch's last phase reports the error: a sum over every rating is a chain of
    // dependent additions, as long as the pass itself.
    if (p.last) {
      const double full = e - ut * vt;
      loss += full * full;
    }
    item.sums.numerator += static_cast<double>(e) * ut;
    item.sums.denominator += lambda + static_cast<double>(ut) * ut;
  }
  return loss;
}

double CcdSolver::users_cell(const CcdPhase& p, const Cell& c, const float* residuals) {
  double loss = 0;
  const double lambda = lambda_;
  const std::span<const CellRating> cell = c.ratings;
  const ItemEntry* entries = items_.data() + c.first_row;
  for (std::size_t k = 0; k < cell.size(); ++k) {
    const CellRating& r = cell[k];
    const float e = residuals[k], ut = user_column_[r.user], vt = entries[r.row].column;
    if (p.last) {
      const double full = e - ut * vt;
      loss += full * full;
    }
    Sums& s = user_sums_[r.user];
    s.numerator += static_cast<double>(e) * vt;
    s.denominator += lambda + static_cast<double>(vt) * vt;
  }
  return loss;
}

double CcdSolver::visit(const CcdPhase& p, const WorkerRatings& ratings, model::Block& items, const float* users,
                        rotation::GridLocks& locks, bool first_visit, bool last_visit) {
  take_items(p, items, first_visit);
  const std::uint32_t G = ratings.groups();
  std::vector<double> loss(static_cast<std::size_t>(G) * G, 0.0);
  // Diagonal rounds: no two cells at once share a user group or an item sub-block, so the sums
  // of a user or an item are taken one cell at a time, in the same order every run.
  rotation::diagonal_sweep(G, locks, [&](std::uint32_t g, std::uint32_t sub) {
    const auto cell = ratings.cell(items.id(), g, sub);
    float* residuals = residuals_.data() + ratings.position_of(cell);
    loss[g * G + sub] = p.items ? items_cell(p, cell, residuals, users, items.data()) : users_cell(p, cell, residuals);
  });
  put_items(p, items, last_visit);
  return std::accumulate(loss.begin(), loss.end(), 0.0);
}

void CcdSolver::finish_users(const CcdPhase& p, float* users) {
  oneapi::tbb::parallel_for(std::size_t{0}, user_sums_.size(), [&](std::size_t i) {
    const Sums& s = user_sums_[i];
    if (s.denominator > 0) user_column_[i] = users[i * stride_ + p.column] = static_cast<float>(s.numerator / s.denominator);
  });
}

}  // namespace gyre::mf
