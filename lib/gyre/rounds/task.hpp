// gyre/rounds/task.hpp — what a rounds app's control plane and workers exchange: a task, the steps it led to, the limits both check.
#pragma once

#include <cstdint>
#include <vector>

namespace gyre::scheduler {

// What the control plane schedules for one round: a set of parameters and what to compute for
// them, both the app's to interpret (kind 0 might be "partial sums for these coordinates", kind
// 1 "an exact check of everything"). `scalar` is one number the round needs besides the ids (a
// residual mean, a dual scale), decided by the driver when it sends the round.
struct Task {
  std::uint8_t kind = 0;
  double scalar = 0;
  std::vector<std::uint32_t> params;
};

// A change the control plane made to one parameter, which every worker applies to its own
// state (a residual, margins) before it pushes the next task.
struct Step {
  std::uint32_t param = 0;
  double delta = 0;
};

// What a receiver allows: a peer must not be able to name a parameter or a kind that does not
// exist, nor choose an allocation.
struct RoundsLimits {
  std::uint32_t params = 0;  // every id < params
  std::uint8_t kinds = 1;    // every kind < kinds
};

}  // namespace gyre::scheduler
