// gyre/scheduler/protocol.hpp — control-plane messages between the scheduler and the workers.
#pragma once

#include <cereal/types/array.hpp>

#include <array>
#include <cstdint>

namespace gyre::scheduler {

enum MessageType : std::uint16_t {
  kBlockMessage = 1,  // a rotating block (worker → worker); see pipeline/block_codec
  kPhaseGo = 2,       // scheduler → worker: start phase k
  kPhaseDone = 3,     // worker → scheduler: phase k finished, with the kernel's sums
  kStop = 4,          // scheduler → worker: the job is over, hand back your state
  // 5 is runtime::kFailureNotice: the job failed (gyre/runtime/failure.hpp)
};

enum class PhaseKind : std::uint8_t {
  kTrain = 0,     // visits update the blocks
  kEvaluate = 1,  // visits only read them (held-out error of the current model)
};

// Kernels report a fixed number of sums per phase; what each means is the app's business.
inline constexpr std::size_t kPhaseSums = 8;
using PhaseSums = std::array<double, kPhaseSums>;

struct PhaseGo {
  std::uint64_t phase = 0;
  std::uint8_t kind = 0;
  template <class Archive>
  void serialize(Archive& ar) { ar(phase, kind); }
};

struct PhaseDone {
  std::uint64_t phase = 0;
  PhaseSums sums{};
  template <class Archive>
  void serialize(Archive& ar) { ar(phase, sums); }
};

}  // namespace gyre::scheduler
