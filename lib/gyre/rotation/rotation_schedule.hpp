// gyre/rotation/rotation_schedule.hpp — which block each worker updates at each step of a rotation.
#pragma once

#include <cstdint>
#include <mutex>
#include <vector>

#include "gyre/base/export.hpp"
#include "gyre/model/block.hpp"

namespace gyre::rotation {

enum class RingOrder {
  kFixed,   // ring 0 → 1 → … → P−1 → 0 in every phase
  // A seeded random permutation per phase (Harp draws one per iteration). The orders repeat
  // every kRingPeriod phases, so that where the groups stand after any number of phases is a
  // power of one permutation (found in O(P log phases), not by walking every phase).
  kRandom,
};

inline constexpr std::uint64_t kRingPeriod = 1024;

// One block visit in a worker's sequence for a phase.
struct Visit {
  model::BlockId block = 0;
  std::uint64_t phase = 0;
  std::uint32_t step = 0;   // 0 … P−1 within the phase
  std::uint32_t slot = 0;   // 0 … d−1 within the step
  std::uint64_t seq = 0;    // position in this worker's whole sequence: (phase·P + step)·d + slot
  int next = -1;            // worker to forward to afterwards; kKeep at the phase's last step
  static constexpr int kKeep = -1;
};

// P workers, B = P·m blocks in P groups of m: group g = {g, g+P, …, g+(m−1)P}. Worker i holds
// group i at the start of phase 0. In every phase each group moves one ring position per step
// for P steps, so every (worker, block) pair meets exactly once per phase; after its last step
// a group stays where it is and starts the next phase there (under that phase's ring order).
//
// A schedule may start later in that sequence (`first_phase`: the phases a saved model went
// through before a warm start), so that its phase k is phase first_phase + k of a fresh one:
// the same ring order and the same holders, and so the same visits in the same order. Any
// first_phase costs the same: a fixed ring moves the groups by one worker a phase, and random
// rings repeat with period kRingPeriod.
//
// Every rank can evaluate the schedule on its own: it depends only on (P, m, order, seed), so
// the control plane only needs to say when a phase starts, never who goes where. How many of a
// worker's visits are in flight at once (the pipeline depth) is the engine's, not the schedule's.
class GYRE_API RotationSchedule {
 public:
  RotationSchedule(int workers, int blocks_per_worker, RingOrder order, std::uint64_t seed,
                   std::uint64_t first_phase = 0);

  int workers() const noexcept { return workers_; }
  // m: the blocks of a group, which a worker visits in one step.
  int blocks_per_worker() const noexcept { return group_size_; }
  int blocks() const noexcept { return workers_ * group_size_; }
  std::uint32_t visits_per_phase() const noexcept { return static_cast<std::uint32_t>(blocks()); }

  // ring(k)[pos] is the worker at ring position pos in phase k.
  std::vector<int> ring(std::uint64_t phase) const;
  // The m blocks of group g.
  std::vector<model::BlockId> group_blocks(int group) const;
  // Worker holding group g at the start of phase k.
  int holder(std::uint64_t phase, int group) const;
  // The blocks worker w holds at the start of phase k (what it processes at step 0).
  std::vector<model::BlockId> held_at_start(int worker, std::uint64_t phase) const;
  // Worker w's visits in phase k, in processing order (steps ascending, slots ascending).
  std::vector<Visit> visits(int worker, std::uint64_t phase) const;

 private:
  // Worker holding group g at the start of phase k counted from the very first (first_phase_ +
  // the caller's phase).
  std::vector<int> holders(std::uint64_t phase) const;
  std::vector<int> ring_from_start(std::uint64_t phase) const;
  // Random rings: where the group that started phase 0 at worker w stands after the first j
  // phases of a period (j = 0 … kRingPeriod, built on first use), and after `periods_`
  // whole periods (the last asked for).
  void build_period() const;

  int workers_;
  int group_size_;
  RingOrder order_;
  std::uint64_t seed_;
  std::uint64_t first_phase_;
  mutable std::mutex mutex_;
  mutable std::vector<std::vector<int>> within_period_;
  mutable std::uint64_t periods_ = 0;
  mutable std::vector<int> after_periods_;
};

}  // namespace gyre::rotation
