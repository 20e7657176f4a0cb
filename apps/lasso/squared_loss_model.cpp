// apps/lasso/squared_loss_model.cpp — least squares for the scheduled coordinate descent: steps from x_jᵀr, the check's residual sums, the sklearn-style gap.
#include <utility>

#include "lasso/loss_model.hpp"
#include "lasso/residual_shard.hpp"

namespace gyre::lasso {
namespace {

class SquaredLossModel final : public LossModel {
 public:
  explicit SquaredLossModel(const ColumnStats& stats) : stats_(stats), gradients_(stats.features(), 0.0) {}

  std::uint32_t parameters() const override { return stats_.features(); }
  // x_jᵀr per coordinate. Workers keep the uncentred residual; its mean m = −μᵀβ, the round's
  // scalar, turns x_jᵀr into x̃_jᵀr̃.
  rounds::Task round_task(std::vector<std::uint32_t> coordinates) const override {
    return {static_cast<std::uint8_t>(RoundKind::kPartials), -mu_dot_beta_, std::move(coordinates)};
  }
  std::size_t sums_per_parameter(const rounds::Task&) const override { return 1; }
  // Every feature's x_jᵀr, then Σ(r − m)² and Σ(r − m)(y − ȳ) (ResidualShard::push).
  std::size_t check_size() const override { return std::size_t{stats_.features()} + 2; }
  // μᵀβ is recomputed, so rounding does not drift over a long run.
  double check_scalar(std::span<const double> gamma) override {
    mu_dot_beta_ = 0;
    for (std::uint32_t j = 0; j < stats_.features(); ++j) mu_dot_beta_ += stats_.mean[j] * gamma[j] / stats_.scale[j];
    return -mu_dot_beta_;
  }

  Move step(std::uint32_t j, double gamma, std::span<const double> sums, double scalar,
            const Penalty& penalty) override {
    const double g = stats_.gradient(j, sums[0], scalar);
    const double next = coordinate_minimiser(gamma, g, stats_.curvature[j], penalty);
    const double delta = next - gamma;
    return {next, 0.5 * stats_.curvature[j] * delta * delta};
  }
  void stepped(std::uint32_t j, double beta_step) override { mu_dot_beta_ += stats_.mean[j] * beta_step; }

  void read_check(std::span<const double> sums, double scalar) override {
    const std::uint32_t p = stats_.features();
    const double n = static_cast<double>(stats_.samples);
    gradients_.assign(p, 0.0);
    for (std::uint32_t j = 0; j < p; ++j)
      if (stats_.usable[j]) gradients_[j] = stats_.gradient(j, sums[j], scalar);
    rss_ = sums[p] / n;
    dot_y_ = sums[p + 1] / n;
  }
  const std::vector<double>& gradients() const override { return gradients_; }
  Certificate certify(std::span<const double> gamma, const Penalty& penalty) const override {
    return lasso::certify(gamma, gradients_, rss_, dot_y_, penalty);
  }
  double predicted_step(std::uint32_t j, double gamma, const Penalty& penalty) const override {
    return coordinate_minimiser(gamma, gradients_[j], stats_.curvature[j], penalty) - gamma;
  }
  // The intercept is implicit: ȳ − μᵀβ.
  std::vector<rounds::Step> unscheduled_steps(bool) override { return {}; }
  double intercept() const override { return stats_.y_offset - mu_dot_beta_; }

  void save(StateWriter& out) const override {
    out.put(mu_dot_beta_);
    out.put(rss_);
    out.put(dot_y_);
    out.put_all(gradients_);
  }
  void restore(StateReader& in) override {
    mu_dot_beta_ = in.get<double>();
    rss_ = in.get<double>();
    dot_y_ = in.get<double>();
    gradients_ = in.get_all<double>(stats_.features(), "the gradients");
  }

 private:
  const ColumnStats& stats_;
  double mu_dot_beta_ = 0;      // μᵀβ (0 without an intercept, as μ is)
  double rss_ = 0, dot_y_ = 0;  // of the last check, per sample
  std::vector<double> gradients_;
};

}  // namespace

std::unique_ptr<LossModel> squared_loss_model(const ColumnStats& stats) {
  return std::make_unique<SquaredLossModel>(stats);
}

}  // namespace gyre::lasso
