// gyre/scheduler/phase_report.hpp — a kernel's report of one phase as a struct of named sums, carried as the phase's doubles.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <type_traits>
#include <utility>

#include "gyre/scheduler/protocol.hpp"

namespace gyre::scheduler {

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

}  // namespace gyre::scheduler
