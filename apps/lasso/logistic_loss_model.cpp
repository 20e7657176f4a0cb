// apps/lasso/logistic_loss_model.cpp — the logistic loss for the scheduled coordinate descent: safeguarded Newton steps from two sums a coordinate, the intercept stepped at checks, the logistic gap.
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <utility>

#include "lasso/logistic.hpp"
#include "lasso/logistic_stepper.hpp"
#include "lasso/loss_model.hpp"
#include "lasso/residual_shard.hpp"

namespace gyre::lasso {
namespace {

class LogisticLossModel final : public LossModel {
 public:
  LogisticLossModel(const ColumnStats& stats, bool intercept)
      : stats_(stats), stepper_(stats, intercept), intercept_(intercept),
        gradients_(stats.features(), 0.0) {}

  // The intercept's id is accepted either way, as the workers (MarginShard) do.
  std::uint32_t parameters() const override { return stats_.features() + 1; }
  // Workers' margins are exact, so rounds need no scalar.
  rounds::Task round_task(std::vector<std::uint32_t> coordinates) const override {
    const bool any_centred =
        std::any_of(coordinates.begin(), coordinates.end(), [&](std::uint32_t j) { return stepper_.centred(j); });
    if (!any_centred) return {static_cast<std::uint8_t>(RoundKind::kPartials), 0, std::move(coordinates)};
    coordinates.push_back(stats_.features());
    return {static_cast<std::uint8_t>(RoundKind::kCentredPartials), 0, std::move(coordinates)};
  }
  std::size_t sums_per_parameter(const rounds::Task& round) const override {
    return static_cast<RoundKind>(round.kind) == RoundKind::kCentredPartials ? 3 : 2;
  }
  std::size_t check_size() const override { return logistic_check_size(stats_.features()); }
  double check_scalar(std::span<const double>) override { return 0; }

  void begin_round(const rounds::Task& round, std::span<const double> sums) override {
    round_centred_ = static_cast<RoundKind>(round.kind) == RoundKind::kCentredPartials;
    if (!round_centred_) return;
    const std::size_t last = 3 * (round.params.size() - 1);  // the intercept's
    totals_ = {sums[last], sums[last + 1]};
  }

  Move step(std::uint32_t j, double gamma, std::span<const double> sums, double, const Penalty& penalty) override {
    const LogisticStepper::Sums own{sums[0], sums[1], round_centred_ ? sums[2] : 0.0};
    const LogisticStepper::Move move = stepper_.step(j, gamma, own, round_centred_ ? &totals_ : nullptr, penalty);
    centre_ = move.centre;
    return {move.gamma, move.decrease};
  }
  void stepped(std::uint32_t, double beta_step) override { shift_ -= centre_ * beta_step; }
  std::vector<rounds::Step> end_round() override {
    if (shift_ == 0) return {};
    b_ += shift_;
    return {rounds::Step{stats_.features(), std::exchange(shift_, 0.0)}};
  }

  void read_check(std::span<const double> sums, double) override {
    total_ = logistic_check_from_sums(sums, stats_.features());
    const double n = static_cast<double>(stats_.samples);
    for (std::uint32_t j = 0; j < stats_.features(); ++j)
      gradients_[j] = stats_.usable[j] ? -total_.sums[2 * std::size_t{j}] / (n * stats_.scale[j]) : 0.0;
  }
  const std::vector<double>& gradients() const override { return gradients_; }
  Certificate certify(std::span<const double> gamma, const Penalty& penalty) const override {
    return certify_logistic(gamma, total_, stats_, intercept_, penalty);
  }
  double predicted_step(std::uint32_t j, double gamma, const Penalty& penalty) const override {
    return stepper_.uncentred_step(j, gamma, total_.sums[2 * std::size_t{j}], total_.sums[2 * std::size_t{j} + 1],
                                   penalty);
  }

  std::optional<rounds::Task> refinement(const Certificate& certified, const Penalty& penalty,
                                           double tol) const override {
    // Worth a pass over the rows when the bound's slack explains the excess and the exact gap,
    // about 2(1 − s)·(the penalty's part of F) on the grid, would pass.
    const double target = tol * certified.objective, excess = certified.duality_gap - target;
    const double slack = logistic_bound_slack(total_, stats_, intercept_, penalty);
    const double shortfall = slack / std::max(certified.objective, 1e-300);  // ≈ 1 − s, as A ≈ F there
    const double penalties = certified.objective - total_.loss / static_cast<double>(stats_.samples);
    if (!(excess > 0) || slack < excess || 2 * shortfall * penalties > target) return std::nullopt;
    const double shift = logistic_dual_point(total_, stats_, intercept_, penalty).shift;
    return rounds::Task{static_cast<std::uint8_t>(RoundKind::kDual), shift, {}};
  }
  std::size_t refinement_size() const override { return refinement_scales().size(); }
  Certificate refine(const Certificate& certified, std::span<const double> sums,
                     const Penalty& penalty) const override {
    return refine_logistic(certified, total_, stats_, intercept_, penalty, sums);
  }

  // The path starts where β = 0 is optimal for the largest λ: at b = logit(ȳ), which the first
  // check (at b = 0, where every p_i = 1/2 and Σ(p_i − y_i) = n/2 − Σy) gives exactly. After
  // that, one Newton step (safeguarded) per check.
  std::vector<rounds::Step> unscheduled_steps(bool at_start) override {
    if (!intercept_) return {};
    const std::uint32_t p = stats_.features();
    const double n = static_cast<double>(stats_.samples);
    double next = b_;
    if (at_start) {
      if (calibrated_) return {};
      calibrated_ = true;
      const double mean_y = 0.5 - total_.sums[2 * std::size_t{p}] / n;
      if (!(mean_y > 0 && mean_y < 1))
        throw std::invalid_argument("logistic regression needs samples of both classes");
      next = std::log(mean_y) - std::log1p(-mean_y);
    } else {
      next = intercept_step(b_, total_.sums[2 * std::size_t{p}], total_.sums[2 * std::size_t{p} + 1], stats_.samples);
    }
    const double delta = next - b_;
    b_ = next;
    if (delta == 0) return {};
    return {rounds::Step{p, delta}};
  }
  double intercept() const override { return b_; }
  std::vector<std::uint32_t> cycled_own_parameters() const override {
    if (!intercept_) return {};
    return {stats_.features()};
  }
  void adopt(std::uint32_t, double value) override { b_ = value; }

  void save(StateWriter& out) const override {
    out.put<std::uint8_t>(calibrated_);
    out.put(b_);
    out.put<std::uint8_t>(round_centred_);
    out.put(totals_);
    out.put(centre_);
    out.put(shift_);
    for (const std::vector<double>* sums : {&total_.sums, &total_.with_p, &total_.with_not_p}) out.put_all(*sums);
    out.put(total_.loss);
    out.put(total_.entropy);
    out.put_all(gradients_);
  }
  void restore(StateReader& in) override {
    calibrated_ = in.get<std::uint8_t>() != 0;
    b_ = in.get<double>();
    round_centred_ = in.get<std::uint8_t>() != 0;
    totals_ = in.get<LogisticStepper::Totals>();
    centre_ = in.get<double>();
    shift_ = in.get<double>();
    for (std::vector<double>* sums : {&total_.sums, &total_.with_p, &total_.with_not_p}) *sums = in.get_all<double>();
    total_.loss = in.get<double>();
    total_.entropy = in.get<double>();
    gradients_ = in.get_all<double>(stats_.features(), "the gradients");
  }

 private:
  const ColumnStats& stats_;
  LogisticStepper stepper_;
  bool intercept_;
  bool calibrated_ = false;
  double b_ = 0;
  // The round being pulled.
  bool round_centred_ = false;
  LogisticStepper::Totals totals_;            // Σ(p − y), Σw over every row
  double centre_ = 0;                         // c of the coordinate just stepped
  double shift_ = 0;                          // the intercept's move the round's steps imply
  LogisticShardCheck total_;  // of the last check, folded over the workers
  std::vector<double> gradients_;
};

}  // namespace

std::unique_ptr<LossModel> logistic_loss_model(const ColumnStats& stats,
                                               bool intercept) {
  return std::make_unique<LogisticLossModel>(stats, intercept);
}

}  // namespace gyre::lasso
