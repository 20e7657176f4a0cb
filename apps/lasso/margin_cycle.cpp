// apps/lasso/margin_cycle.cpp — a logistic worker's own cycles when it holds every row: IRLS steps (a coordinate descent on the loss's quadratic model, then a line search), and the exact coordinate steps near the optimum.
#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "lasso/margin_shard.hpp"

namespace gyre::lasso {
namespace {

// The IRLS steps of a cycle (glmnet's): at most this many Newton steps, each a coordinate
// descent on the loss's quadratic model followed by a line search on F.
constexpr int kNewtonSteps = 100;

}  // namespace

std::vector<double> MarginShard::cycle(double lambda, std::span<const std::uint32_t> params) {
  if (!cycles_.stepper) throw std::invalid_argument("a cycle asked of a worker that does not hold every row");
  check_ids(params);
  const Penalty penalty{lambda, cycles_.alpha};
  // F at β = 0, b = 0 is log 2: the scale of the objective the tolerance is relative to.
  const double enough = depth_.next(
      lambda, 0.1 * cycles_.tol * std::log(2.0) / static_cast<double>(std::max<std::size_t>(params.size(), 1)));
  std::uint64_t updates = 0;
  // Near the optimum a line search cannot tell F's change from rounding (a sum of n losses) and
  // refuses every Newton step; the exact coordinate steps, each safe by its own bound, go on.
  if (!newton_steps(penalty, params, enough, updates)) exact_steps(penalty, params, enough, updates);
  std::vector<double> out;
  out.reserve(params.size() + 1);
  for (const std::uint32_t j : params) out.push_back(j == features() ? b_ : gamma_[j]);
  out.push_back(static_cast<double>(updates));
  return out;
}

bool MarginShard::newton_steps(const Penalty& penalty, std::span<const std::uint32_t> params, double enough,
                               std::uint64_t& updates) {
  const LogisticStepper& stepper = *cycles_.stepper;
  const ColumnStats& stats = stepper.stats();
  const double n = static_cast<double>(samples());
  const bool intercept = std::find(params.begin(), params.end(), features()) != params.end();
  bool progressed = false;
  // Each model is solved as far as the Newton step is worth: a hundredth of what the last
  // step gained, spread over the coordinates (the first model: one sweep), never below
  // `enough`. Solving an early model to the end buys sweeps the next model throws away.
  double inner = std::numeric_limits<double>::infinity();
  std::vector<double> moved(features(), 0.0);  // Δγ proposed by the model
  std::vector<std::uint8_t> is_touched(features(), 0);
  std::vector<std::uint32_t> touched;         // the coordinates the model moved
  for (int newton = 0; newton < kNewtonSteps; ++newton) {
    // The loss's quadratic model at the margins of now: per row its gradient q = (p − y) + w·δ,
    // δ the margins' proposed change. Coordinate steps on the model touch no sigmoid.
    double weight_total = 0, model_total = 0;  // Σw, Σq
    for (Part& part : parts_) {
      part.model.resize(part.margin.size());
      for (std::size_t r = 0; r < part.margin.size(); ++r) {
        part.model[r] = {part.weight[r], part.residual[r], 0.0};
        weight_total += part.weight[r];
        model_total += part.residual[r];
      }
    }
    for (const std::uint32_t j : touched) moved[j] = 0, is_touched[j] = 0;
    touched.clear();
    double intercept_change = 0;
    auto shift_every_row = [&](double shift) {
      for (Part& part : parts_)
        for (Part::ModelRow& row : part.model) {
          row.change += shift;
          row.gradient += row.weight * shift;
        }
      model_total += weight_total * shift;
      intercept_change += shift;
    };
    auto step = [&](std::uint32_t j) -> CoordinateMove {
      if (j == features() || !stats.usable[j]) return {};
      const double now = gamma_[j] + moved[j];
      LogisticStepper::Sums own;  // of the model: Σ x·q, Σ x²w, Σ x·w over every row
      for (std::size_t p = 0; p < parts_.size(); ++p) {
        const auto& c = rows_.columns(p);
        const Part& part = parts_[p];
        for (std::uint64_t e = c.col_begin[j]; e < c.col_begin[j + 1]; ++e) {
          const Part::ModelRow& row = part.model[c.rows[e]];
          const double x = c.values[e], w = row.weight;
          own.gradient += x * row.gradient;
          own.curvature += x * x * w;
          own.moment += x * w;
        }
      }
      // A centred column steps along x − c·1 with the intercept (LogisticStepper::centre).
      const LogisticStepper::Totals model{model_total, weight_total};
      const LogisticStepper::Centred along = stepper.centre(j, own, &model);
      const double centre = along.centre;
      const double s = stats.scale[j], fit_h = along.curvature / (n * s * s);
      if (!(fit_h + penalty.l2() > 0)) return {0, now != 0};
      const double next = coordinate_minimiser(now, -along.gradient / (n * s), fit_h, penalty), delta = next - now;
      if (delta == 0) return {0, next != 0};
      if (!is_touched[j]) is_touched[j] = 1, touched.push_back(j);
      moved[j] += delta;
      const double beta_step = delta / s;
      for (std::size_t p = 0; p < parts_.size(); ++p) {
        const auto& c = rows_.columns(p);
        Part& part = parts_[p];
        for (std::uint64_t e = c.col_begin[j]; e < c.col_begin[j + 1]; ++e) {
          Part::ModelRow& row = part.model[c.rows[e]];
          row.change += c.values[e] * beta_step;
          row.gradient += row.weight * c.values[e] * beta_step;
          model_total += row.weight * c.values[e] * beta_step;
        }
      }
      if (centre != 0) shift_every_row(-centre * beta_step);
      return {0.5 * fit_h * delta * delta, next != 0};
    };
    // The intercept: the model's exact minimiser along it, at each sweep's end.
    auto intercept_move = [&]() -> double {
      if (!intercept || !(weight_total > 0)) return 0;
      const double shift = -model_total / weight_total;
      shift_every_row(shift);
      return 0.5 * weight_total / n * shift * shift;
    };
    updates += active_set_cycle(params, std::max(enough, inner), cycles_.max_sweeps, false, step, intercept_move);

    // A line search on F along the model's step (Armijo, as proximal Newton methods take it):
    // D bounds F's directional change from above.
    double slope = 0, penalties = 0;
    for (const Part& part : parts_)
      for (std::size_t r = 0; r < part.margin.size(); ++r) slope += part.residual[r] * part.model[r].change;
    slope /= n;
    for (const std::uint32_t j : touched) penalties += penalty.value(gamma_[j] + moved[j]) - penalty.value(gamma_[j]);
    const double direction = slope + penalties;
    if (!(direction < 0)) break;  // the model sees no descent: the cycle has converged
    double t = 1, gained = 0;
    bool accepted = false;
    for (int halvings = 0; halvings < 40 && !accepted; ++halvings, t *= 0.5) {
      // The rows' losses (two logarithms a row, the line search's cost) in blocks, one a thread.
      double change = 0;
      for (const Part& part : parts_)
        change += rows_.sum_blocks(part.margin.size(), [&](std::size_t begin, std::size_t end) {
          double sum = 0;
          for (std::size_t r = begin; r < end; ++r)
            sum += logistic_loss(part.margin[r] + t * part.model[r].change, part.y[r]) -
                   logistic_loss(part.margin[r], part.y[r]);
          return sum;
        });
      change /= n;
      for (const std::uint32_t j : touched) change += penalty.value(gamma_[j] + t * moved[j]) - penalty.value(gamma_[j]);
      if (change <= 0.25 * t * direction) {
        accepted = true;
        gained = -change;
        break;
      }
    }
    if (!accepted) break;
    progressed = true;
    for (Part& part : parts_)
      rows_.for_each_block(part.margin.size(), [&](std::size_t begin, std::size_t end) {
        for (std::size_t r = begin; r < end; ++r) {
          part.margin[r] += t * part.model[r].change;
          refresh_row(part, r);
        }
      });
    for (const std::uint32_t j : touched) gamma_[j] += t * moved[j];
    b_ += t * intercept_change;
    if (gained <= enough) break;
    inner = 0.01 * gained / static_cast<double>(std::max<std::size_t>(params.size(), 1));
  }
  return progressed;
}

void MarginShard::exact_steps(const Penalty& penalty, std::span<const std::uint32_t> params, double enough,
                              std::uint64_t& updates) {
  const LogisticStepper& stepper = *cycles_.stepper;
  const double n = static_cast<double>(samples());
  const bool intercept = std::find(params.begin(), params.end(), features()) != params.end();
  // Steps are taken one by one (Gauss–Seidel), part by part on this thread.
  auto move = [&](std::span<const rounds::Step> steps) {
    const bool every_row = std::any_of(steps.begin(), steps.end(), [&](const auto& s) { return s.param == features(); });
    for (std::size_t p = 0; p < parts_.size(); ++p) apply_part(p, steps, every_row);
  };
  std::vector<double> sums(3);
  auto step = [&](std::uint32_t j) -> CoordinateMove {
    if (j == features() || !stepper.stats().usable[j]) return {};
    const std::uint32_t one[] = {j};
    LogisticStepper::Sums own;
    for (std::size_t p = 0; p < parts_.size(); ++p) {
      part_partials(p, one, sums, true);
      own.gradient += sums[0];
      own.curvature += sums[1];
      own.moment += sums[2];
    }
    const LogisticStepper::Totals all = stepper.centred(j) ? totals() : LogisticStepper::Totals{};
    const LogisticStepper::Move m = stepper.step(j, gamma_[j], own, stepper.centred(j) ? &all : nullptr, penalty);
    const double delta = m.gamma - gamma_[j];
    if (delta == 0) return {0, m.gamma != 0};
    gamma_[j] = m.gamma;
    const double beta_step = delta / stepper.stats().scale[j], shift = -m.centre * beta_step;
    const rounds::Step steps[] = {{j, beta_step}, {features(), shift}};
    move(std::span<const rounds::Step>(steps, shift != 0 ? 2 : 1));
    b_ += shift;
    return {m.decrease, m.gamma != 0};
  };
  // The intercept: one Newton step at each sweep's end.
  auto intercept_move = [&]() -> double {
    if (!intercept) return 0;
    const LogisticStepper::Totals all = totals();
    const double next = intercept_step(b_, all.residual, all.weight, samples());
    if (next == b_) return 0;
    const double delta = next - b_;
    const rounds::Step step[] = {{features(), delta}};
    move(step);
    b_ = next;
    return 0.5 * all.weight / n * delta * delta;
  };
  updates += active_set_cycle(params, enough, cycles_.max_sweeps, false, step, intercept_move);
}

}  // namespace gyre::lasso
