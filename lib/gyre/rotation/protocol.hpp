// gyre/rotation/protocol.hpp — control-plane messages between the scheduler and the workers.
#pragma once

#include <cstdint>

#include "gyre/rotation/rotation_kernel.hpp"
#include "gyre/wire/channels.hpp"

namespace gyre::rotation {

// The rotation channel (types 1–5).
enum MessageType : std::uint16_t {
  kBlockMessage = wire::channels::kRotation.at(0),  // a rotating block (worker → worker); see rotation/block_codec
  kPhaseGo = wire::channels::kRotation.at(1),       // scheduler → worker: start phase k; body: the phase's payload
  kPhaseDone = wire::channels::kRotation.at(2),     // worker → scheduler: phase k finished, with the kernel's sums
  kStop = wire::channels::kRotation.at(3),          // scheduler → worker: the job is over, hand back your state
  // The job's failure notice is the runtime's (runtime::kFailureNotice, gyre/runtime/failure.hpp).
};

struct PhaseGo {
  std::uint64_t phase = 0;
  std::uint8_t kind = 0;
  template <class Archive>
  void serialize(Archive& ar) { ar(phase, kind); }
};

// A kPhaseDone carries its phase in the meta (this record) and its sums in the body, as
// little-endian doubles: encode_phase_done / decode_phase_done (rotation_driver.hpp).
struct PhaseDoneRecord {
  std::uint64_t phase = 0;
  template <class Archive>
  void serialize(Archive& ar) { ar(phase); }
};

struct PhaseDone {
  std::uint64_t phase = 0;
  PhaseSums sums;
};

}  // namespace gyre::rotation
