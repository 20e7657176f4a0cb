// apps/mf/ccd_update.cpp — CCD++'s rank-one updates over a visiting block and the worker's users.
#include "mf/ccd_update.hpp"

#include <oneapi/tbb/parallel_for.h>

#include <cstring>
#include <numeric>

namespace gyre::mf {
namespace {

// The tail's two sums, as doubles: a column's sums run over up to millions of ratings.
struct Sums {
  double numerator;
  double denominator;
};
Sums load_sums(const float* tail) {
  Sums s{};
  std::memcpy(&s, tail + kCcdSumsAt, sizeof s);
  return s;
}
void store_sums(float* tail, const Sums& s) { std::memcpy(tail + kCcdSumsAt, &s, sizeof s); }
static_assert(sizeof(Sums) == (kCcdChangeAt - kCcdSumsAt) * sizeof(float), "the sums fill the tail up to the change");

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
  p.last = sub == per - 1;
  p.previous = sub == 0 ? c.rank - 1 : static_cast<std::uint32_t>((sub - 1) / halves);
  return p;
}

CcdSolver::CcdSolver(const MfConfig& c, std::size_t width, std::size_t stride, std::size_t users, std::uint64_t ratings)
    : lambda_(c.lambda),
      width_(width),
      stride_(stride),
      residuals_(ratings, 0.0f),
      numerator_(users, 0.0),
      denominator_(users, 0.0),
      change_(users, 0.0f) {}

double CcdSolver::items_cell(const CcdPhase& p, std::span<const LocalRating> cell, float* residuals, float* users,
                             float* items) const {
  double loss = 0;
  for (std::size_t k = 0; k < cell.size(); ++k) {
    const LocalRating& r = cell[k];
    const float* u = users + std::size_t{r.user} * stride_;
    float* v = items + std::size_t{r.item} * stride_;
    float& e = residuals[k];
    // Each rating's residual is brought up to date before its sums take it.
    if (p.first)
      e = r.value - dot(u, v, width_);
    else
      e -= change_[r.user] * v[p.previous];
    loss += static_cast<double>(e) * e;
    const float ut = u[p.column];
    const double without = static_cast<double>(e) + static_cast<double>(ut) * v[p.column];
    Sums s = load_sums(v + width_);
    s.numerator += without * ut;
    s.denominator += static_cast<double>(lambda_) + static_cast<double>(ut) * ut;
    store_sums(v + width_, s);
  }
  return loss;
}

double CcdSolver::users_cell(const CcdPhase& p, std::span<const LocalRating> cell, float* residuals, float* users,
                             float* items) {
  double loss = 0;
  for (std::size_t k = 0; k < cell.size(); ++k) {
    const LocalRating& r = cell[k];
    const float* u = users + std::size_t{r.user} * stride_;
    const float* v = items + std::size_t{r.item} * stride_;
    float& e = residuals[k];
    e -= u[p.previous] * v[width_ + kCcdChangeAt];
    loss += static_cast<double>(e) * e;
    const float vt = v[p.column];
    const double without = static_cast<double>(e) + static_cast<double>(u[p.column]) * vt;
    numerator_[r.user] += without * vt;
    denominator_[r.user] += static_cast<double>(lambda_) + static_cast<double>(vt) * vt;
  }
  return loss;
}

double CcdSolver::visit(const CcdPhase& p, const WorkerRatings& ratings, model::Block& items, float* users,
                        rotation::GridLocks& locks, bool first_visit, bool last_visit) {
  if (p.items && first_visit) clear_item_sums(items);
  const std::uint32_t G = ratings.groups();
  std::vector<double> loss(static_cast<std::size_t>(G) * G, 0.0);
  // Diagonal rounds: no two cells at once share a user group or an item sub-block, so the sums
  // of a user or an item are taken one cell at a time, in the same order every run.
  rotation::diagonal_sweep(G, locks, [&](std::uint32_t g, std::uint32_t sub) {
    const auto cell = ratings.cell(items.id(), g, sub);
    float* residuals = residuals_.data() + ratings.position_of(cell);
    loss[g * G + sub] = p.items ? items_cell(p, cell, residuals, users, items.data())
                                : users_cell(p, cell, residuals, users, items.data());
  });
  if (p.items && last_visit) finish_items(p, items);
  return std::accumulate(loss.begin(), loss.end(), 0.0);
}

void CcdSolver::clear_item_sums(model::Block& items) const {
  for (std::size_t row = 0; row < items.rows(); ++row) store_sums(items.row(row) + width_, Sums{});
}

void CcdSolver::finish_items(const CcdPhase& p, model::Block& items) const {
  oneapi::tbb::parallel_for(std::size_t{0}, items.rows(), [&](std::size_t row) {
    float* v = items.row(row);
    const Sums s = load_sums(v + width_);
    // No rating anywhere (or λ = 0 and the users' column all zero): the entry stays.
    const float next = s.denominator > 0 ? static_cast<float>(s.numerator / s.denominator) : v[p.column];
    v[width_ + kCcdChangeAt] = next - v[p.column];
    v[p.column] = next;
  });
}

void CcdSolver::start_users(const CcdPhase&) {
  std::fill(numerator_.begin(), numerator_.end(), 0.0);
  std::fill(denominator_.begin(), denominator_.end(), 0.0);
}

void CcdSolver::finish_users(const CcdPhase& p, float* users) {
  oneapi::tbb::parallel_for(std::size_t{0}, change_.size(), [&](std::size_t i) {
    float* u = users + i * stride_;
    const float next = denominator_[i] > 0 ? static_cast<float>(numerator_[i] / denominator_[i]) : u[p.column];
    change_[i] = next - u[p.column];
    u[p.column] = next;
  });
}

}  // namespace gyre::mf
