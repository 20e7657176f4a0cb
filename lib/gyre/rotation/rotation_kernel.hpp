// gyre/rotation/rotation_kernel.hpp — what an app implements to run under rotation: the per-worker update, and
// the phases its control plane sees (kinds, the kernels' summed reports, the policy that picks the next).
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <type_traits>
#include <utility>
#include <vector>

#include "gyre/base/export.hpp"
#include "gyre/collective/communicator.hpp"
#include "gyre/model/block.hpp"
#include "gyre/rotation/rotation_schedule.hpp"

namespace gyre::rotation {

enum class PhaseKind : std::uint8_t {
  kTrain = 0,     // visits update the blocks
  kEvaluate = 1,  // visits only read them (held-out error of the current model)
};

// Kernels report sums per phase: as many as the app likes, the same number from every worker,
// at most kMaxPhaseSums (the scheduler refuses more before it sizes anything from them); what
// each means is the app's business.
using PhaseSums = std::vector<double>;
inline constexpr std::size_t kMaxPhaseSums = 64 * 1024;

// A phase start may carry what the control plane decided for it (an epoch's learning rate, a
// step size), for kernels in every process to read: at most this many bytes, opaque to the engine.
inline constexpr std::size_t kMaxPhasePayload = 64 * 1024;

// What a kernel reports for a phase, with names: a plain struct of doubles, e.g.
//   struct MfReport { double train_loss = 0, train_count = 0, test_loss = 0, test_count = 0; };
// Every field is a sum: the scheduler adds the workers' reports field by field, in rank order,
// so a report holds totals (losses, counts) and the policy forms ratios from them. It travels
// as the PhaseSums of kPhaseDone; the checks here keep a report that would not fit, or that
// holds anything but doubles laid end to end, from compiling.
namespace detail {
// Whether R can be list-initialised from N doubles that are not constants: a field of another
// type would be a narrowing (or no) conversion, which list-initialisation refuses.
template <class R, std::size_t... I>
constexpr bool from_doubles(std::index_sequence<I...>) {
  return requires(double d) { R{(static_cast<void>(I), d)...}; };
}
}  // namespace detail

template <class R>
concept PhaseReport = std::is_aggregate_v<R> && std::is_trivially_copyable_v<R> && std::is_standard_layout_v<R> &&
                      sizeof(R) % sizeof(double) == 0 && alignof(R) == alignof(double) &&
                      sizeof(R) / sizeof(double) <= kMaxPhaseSums &&
                      detail::from_doubles<R>(std::make_index_sequence<sizeof(R) / sizeof(double)>{});

template <PhaseReport R>
using ReportDoubles = std::array<double, sizeof(R) / sizeof(double)>;

template <PhaseReport R>
PhaseSums to_sums(const R& report) {
  const auto fields = std::bit_cast<ReportDoubles<R>>(report);
  return PhaseSums(fields.begin(), fields.end());
}

// Fields past the end of `sums` (a report shorter than R) read as zero.
template <PhaseReport R>
R report_of(const PhaseSums& sums) {
  ReportDoubles<R> fields{};
  std::copy_n(sums.begin(), std::min(fields.size(), sums.size()), fields.begin());
  return std::bit_cast<R>(fields);
}

struct PhaseResult {
  std::uint64_t phase = 0;
  PhaseKind kind = PhaseKind::kTrain;
  PhaseSums sums{};      // summed over workers, in rank order (so bitwise reproducible)
  double seconds = 0;    // wall time from the start signal to the last worker's report

  // The sums as the kernels' report type.
  template <PhaseReport R>
  R report() const { return report_of<R>(sums); }
};

// Decides what comes next from the phase just finished (nullptr before the first one):
// another train or evaluate phase, or nullopt to stop.
using PhasePolicy = std::function<std::optional<PhaseKind>(const PhaseResult* last)>;

// The payload phase `phase` starts with (at most kMaxPhasePayload bytes), asked on the
// scheduler's side right after the policy has chosen the phase, so it can carry what the
// policy decided. Every worker's kernel is handed it before the phase's first visit.
using PhasePayload = std::function<std::vector<std::byte>(std::uint64_t phase, PhaseKind kind)>;

// One per worker, owning that worker's shard and local state (for MF: its users' factors).
// The engine calls train/evaluate one visit at a time, in schedule order, with the block
// exclusively owned for the duration of the call; the call runs inside the worker's
// task_arena, so TBB parallelism used inside is capped at the worker's thread count.
class GYRE_API RotationKernel {
 public:
  virtual ~RotationKernel() = default;
  virtual void train(model::Block& block, const Visit& visit) = 0;
  virtual void evaluate(const model::Block& block, const Visit& visit) = 0;
  // Called before the first visit of every phase with what the scheduler sent with its start
  // (RotationOptions::phase_payload; empty if it sends nothing).
  virtual void start_phase(std::uint64_t /*phase*/, PhaseKind /*kind*/, std::span<const std::byte> /*payload*/) {}
  // Called once every visit of this worker's phase is done, before its report is taken, with
  // the blocks it keeps into the next phase (read-only: no visit runs until the next phase
  // starts). This worker's part of a consistent cut: local state to reconcile, a snapshot.
  virtual void end_phase(std::uint64_t /*phase*/, PhaseKind /*kind*/,
                         std::span<const model::Block* const> /*held*/) {}
  // Sums accumulated over this worker's visits of the phase just finished; resets them.
  virtual PhaseSums take_phase_sums(PhaseKind kind) = 0;
  // Called once before the first visit with the collectives over all workers (ring order =
  // rank order), for kernels that also reconcile state that does not rotate (LDA's topic
  // totals). Collectives may be called from train(): every worker makes the same number of
  // visits per phase, so a collective at a fixed visit index meets on every worker. The
  // communicator outlives every visit.
  virtual void attach(collective::Communicator& /*workers*/) {}
};

}  // namespace gyre::rotation
