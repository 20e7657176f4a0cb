// tests/lib/ps/small_run.hpp — the simulator runs the barrier tests share: gamma steps with a 5% tail of 4× stragglers.
#pragma once

#include <cstdint>

#include "gyre/simulation/barrier_simulation.hpp"

namespace gyre_test {

inline gyre::simulation::SimulationOptions small_run(int workers, double time, std::uint64_t seed) {
  gyre::simulation::SimulationOptions o;
  o.workers = workers;
  o.time = time;
  o.steps = gyre::simulation::StepTimes::parse("gamma:2:1:0.05:4");
  o.seed = seed;
  return o;
}

}  // namespace gyre_test
