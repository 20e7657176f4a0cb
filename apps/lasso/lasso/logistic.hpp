// apps/lasso/lasso/logistic.hpp — sparse logistic regression's math: stable loss, safeguarded coordinate steps, duality gap certificate.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "gyre/data/regression.hpp"
#include "lasso/column_stats.hpp"
#include "lasso/penalty.hpp"

namespace gyre::lasso {

// The problem (glmnet's binomial family), labels y_i ∈ {0, 1}, margins m_i = b + x_iᵀβ:
//   F(γ, b) = (1/n) Σ_i ℓ_i(m_i) + Σ_j λ(α|γ_j| + (1−α)/2 γ_j²),   ℓ_i(m) = log(1 + e^m) − y_i m,
// with γ_j = β_j·s_j (ColumnStats::scale) and x̃_j = x_j/s_j; the intercept b is not penalised
// and columns are not centred (the intercept is a parameter of its own, a column of ones).
//
// Duality gap. ℓ_i*(u) = H(y_i + u) with H(q) = q log q + (1−q) log(1−q) on [0, 1], and the
// penalty's conjugate is G_j*(c) = (|c| − λα)₊² / (2λ(1−α)) (for α = 1: 0 if |c| ≤ λ, else ∞).
// Fenchel–Young per row and per coordinate, with c = X̃ᵀθ/n, gives for every θ with
// q_i = y_i − θ_i ∈ [0, 1] (and Σθ_i = 0 when there is an intercept, which cancels the b term):
//   F(γ, b) ≥ D(θ) = −(1/n) Σ_i H(q_i) − Σ_j G_j*(x̃_jᵀθ/n).
// The point is the generalised residual y − p (p = σ(m)), equal to the dual optimum at the
// primal optimum, made feasible in two moves:
//  - intercept: Σ(y − p) = 0 only once b is optimal, and centring y − p would push q out of
//    [0, 1]. Instead p is recalibrated to p̃ with Σp̃ = Σy: p̃ = p + κ(1 − p) if Σy ≥ Σp, else
//    p̃ = (1 + κ)p, with κ = Σ(y − p)/Σ(1 − p) resp. Σ(y − p)/Σp ∈ [−1, 1]. p̃ stays in [0, 1],
//    κ → 0 as b converges, and without an intercept κ = 0;
//  - scale: θ = s·(y − p̃), s ∈ [0, 1], so q_i = (1 − s)y_i + s·p̃_i ∈ [0, 1] for any s. As H is
//    convex and H(0) = H(1) = 0, H(q_i) ≤ s(1 − |κ|)H(p_i): D(θ) ≥ s·A − Σ_j G_j*(s·ĝ_j) with
//    A = −(1 − |κ|)/n·Σ H(p_i) ≥ 0 and ĝ_j = x̃_jᵀ(y − p̃)/n. s maximises this concave bound
//    (α = 1: s = min(1, λ/max|ĝ_j|), the gap-safe choice of celer and Fercoq et al.). At the
//    optimum s = 1 attains D = F*, so the gap tends to 0.
// The certificate's gap uses the bound, or the exact Σ_i H(q_i) when the shards send it
// (MarginShard::dual_sum at logistic_dual_point()): one more O(n) pass for a tighter gap.

// σ(m) and log(1 + e^m), without overflow for any finite m.
double sigmoid(double margin) noexcept;
double softplus(double margin) noexcept;
// σ(m) and σ(−m), the very bits of the two sigmoid() calls, from one exponential.
struct Sigmoids {
  double p, not_p;
};
Sigmoids sigmoids(double margin) noexcept;
// ℓ(m) = log(1 + e^m) − y·m for y ∈ {0, 1}, as softplus(±m), so it stays accurate when the
// two terms nearly cancel.
double logistic_loss(double margin, double y) noexcept;
// H(q) = q log q + (1−q) log(1−q), from q and 1 − q each computed without cancellation by the
// caller; 0·log 0 = 0, so saturated rows give 0, not NaN.
double negative_entropy(double q, double not_q) noexcept;

// What a full pass over the rows sums (one shard's rows, or folded over every worker). Parameter
// k < p is feature k, k = p the intercept (a column of ones).
struct LogisticShardCheck {
  std::vector<double> sums;        // 2 per parameter: Σ x_ik(p_i − y_i), Σ x_ik² p_i(1 − p_i)
  std::vector<double> with_p;      // per parameter Σ x_ik p_i: the dual point's recalibration
  std::vector<double> with_not_p;  // per parameter Σ x_ik (1 − p_i)
  double loss = 0;                 // Σ_i ℓ_i(m_i)
  double entropy = 0;              // Σ_i H(p_i) ≤ 0
};
// total += part, element by element (folding in a fixed order keeps the bits reproducible).
void add_check(LogisticShardCheck& total, const LogisticShardCheck& part);
// A check as one vector of doubles, as a round's partial carries it: sums, with_p, with_not_p,
// loss, entropy. Adding two such vectors adds the checks (add_check), so the rounds engine's
// default fold folds them.
std::size_t logistic_check_size(std::uint32_t features) noexcept;
std::vector<double> logistic_check_sums(const LogisticShardCheck& check);
// The inverse; throws std::invalid_argument unless sums has logistic_check_size(features) values.
LogisticShardCheck logistic_check_from_sums(std::span<const double> sums, std::uint32_t features);

// The bounds that make a coordinate step safe, in fit coordinates: the smooth part's curvature
// along coordinate k never exceeds `curvature_cap` = ‖x̃_k‖²/(4n) (p(1−p) ≤ 1/4), and moving γ_k
// by Δ moves no margin by more than `largest_entry`·|Δ|, largest_entry = max_i |x̃_ik|.
struct StepBounds {
  double curvature_cap = 0;
  double largest_entry = 0;
};
// One per parameter (p + 1, the intercept last: {1/4, 1}); columns that are not usable get {0, 0}.
std::vector<StepBounds> step_bounds(const ColumnStats& stats);

// The new γ_k after one proximal Newton step on coordinate k from the raw sums of partials()
// (folded over all rows): g = raw_gradient/(n·s), h = raw_curvature/(n·s²), proposal
// S(h·γ − g, λα)/(h + λ(1−α)). A Newton step can overshoot (far from the optimum, or h ≈ 0 when
// the column's rows are saturated), so it is safeguarded without another pass over the data:
// logistic curvature changes by at most a factor e^{|δ|} when a margin moves by δ, which bounds
// F's change along the step by
//   U(Δ) = gΔ + min(h·ψ(M|Δ|), L/2)·Δ² + penalty(γ + Δ) − penalty(γ),  ψ(t) = (e^t − t − 1)/t²,
// (M, L from StepBounds). The proposal is halved until U is no larger than U at the
// majorisation step S(L·γ − g, λα)/(L + λ(1−α)), which U proves never increases F; failing that
// the majorisation step is taken. So every step decreases F (or leaves it where it is optimal),
// and near the optimum, where ψ ≈ 1/2, the plain Newton step is taken.
double logistic_step(double gamma, double raw_gradient, double raw_curvature, double scale, std::uint64_t samples,
                     const StepBounds& bounds, const Penalty& penalty) noexcept;
// The intercept's step: the same with no penalty and the bounds of a column of ones.
double intercept_step(double intercept, double raw_gradient, double raw_curvature, std::uint64_t samples) noexcept;

// θ = scale·(y − p̃), p̃ recalibrated by `shift` (κ above): what MarginShard::dual_sum evaluates.
struct LogisticDualPoint {
  double scale = 1;
  double shift = 0;
};

// The dual point of the header's derivation for the iterate whose folded check is `total`.
LogisticDualPoint logistic_dual_point(const LogisticShardCheck& total, const ColumnStats& stats, bool intercept,
                                      const Penalty& penalty);

// A refinement of the gap: Σ_i H(q_i) evaluated exactly (one more pass over the rows) at fixed
// scales s, 1 and 1 − 2^{−k} for k = 1..52, at the dual point's shift. The bound's
// H(q_i) ≤ s(1 − |κ|)H(p_i) costs (1 − s)·A, which at a small λ (s just below 1, A ≈ F) exceeds
// the tolerance long after the KKT conditions hold to rounding; the exact value at the largest
// feasible scale on the grid costs at most about 2(1 − s)·λ‖γ‖₁.
std::span<const double> refinement_scales() noexcept;
// The part (1 − s)·A of the bounded gap that a refinement can remove: 0 when no refinement
// scale is feasible (α = 1 and s·|ĝ_j| > λ for some j at every one of them).
double logistic_bound_slack(const LogisticShardCheck& total, const ColumnStats& stats, bool intercept,
                            const Penalty& penalty);
// `bounded` (certify_logistic() without a dual sum) with its gap lowered to the best dual value
// D(θ_s) = −Σ_i H(q_i)/n − Σ_j G_j*(s·ĝ_j) among the refinement scales where it is finite;
// `entropy_sums[k]` is Σ_i H(q_i) at refinement_scales()[k], folded over all rows.
Certificate refine_logistic(const Certificate& bounded, const LogisticShardCheck& total, const ColumnStats& stats,
                            bool intercept, const Penalty& penalty, std::span<const double> entropy_sums);

// Objective, duality gap and KKT violation (features by kkt_violation() on x̃_jᵀ(y − p)/n, the
// intercept by |Σ(p − y)|/n). `gamma` holds the p features' fit coordinates; `dual_sum`, if
// given, is Σ_i H(q_i) at logistic_dual_point(total, stats, intercept, penalty), folded over all
// rows.
Certificate certify_logistic(std::span<const double> gamma, const LogisticShardCheck& total, const ColumnStats& stats,
                             bool intercept, const Penalty& penalty, std::optional<double> dual_sum = std::nullopt);

}  // namespace gyre::lasso
