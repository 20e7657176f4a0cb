// tests/lib/ps/small_run.hpp — the simulator runs the barrier tests share: gamma steps with a 5% tail of 4× stragglers.
#pragma once

#include <cstdint>

#include "gyre/simulation/barrier_simulation.hpp"

namespace gyre_test {

inline gyre::scheduler::SimulationOptions small_run(int workers, double time, std::uint64_t seed) {
  gyre::scheduler::SimulationOptions o;
  o.workers = workers;
  o.time = time;
  o.steps = gyre::scheduler::StepTimes::parse("gamma:2:1:0.05:4");
  o.seed = seed;
  return o;
}

}  // namespace gyre_test
