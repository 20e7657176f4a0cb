// gyre/simulation/barrier_simulation.hpp — a discrete-event simulation of P workers stepping under one barrier.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "gyre/ps/barrier.hpp"

namespace gyre::simulation {

// How long one step of one worker takes, in simulated seconds: a gamma law, optionally mixed
// with stragglers (with probability `straggle` a step takes `factor` times its draw).
struct StepTimes {
  enum class Law { kFixed, kExponential, kGamma };
  Law law = Law::kGamma;
  double shape = 1;  // gamma
  double scale = 1;  // gamma scale; the mean for exponential; the time for fixed
  double straggle = 0;
  double factor = 1;

  // "fixed:T", "exp:MEAN", "gamma:SHAPE:SCALE" or "gamma:SHAPE:SCALE:PROB:FACTOR";
  // throws std::invalid_argument saying what was expected.
  static StepTimes parse(std::string_view text);
  std::string name() const;
  double mean() const;
};

struct SimulationOptions {
  int workers = 200;
  double time = 200;  // simulated seconds
  StepTimes steps;
  std::uint64_t seed = 1;
};

// The q-quantile (nearest rank, q in [0, 1]) of workers' step counts; 0 for none.
std::int64_t step_quantile(std::span<const std::int64_t> steps, double q);

struct SimulationResult {
  std::string barrier;  // the rule's name
  std::vector<std::int64_t> steps;  // steps each worker had completed at the end time
  std::uint64_t waits = 0;          // times a worker was held at the barrier
  double waited = 0;                // simulated seconds spent held, over all workers

  std::int64_t quantile(double q) const { return step_quantile(steps, q); }
  double mean() const;
};

// Every worker runs its steps back to back; after each it asks the barrier, through the same
// Barrier::draw/decide the engines use, and if told to wait looks again each time a peer it
// waits for (the slowest, for a global rule; else the first looked-at peer short of
// required()) completes a step. Under Sampling::kPerCheck a held worker instead looks again,
// at a fresh sample, each time any other worker completes a step. Worker i's k-th step takes the same time under every barrier
// (its own random stream, separate from the sampling), so barriers are compared on the same
// draws and pBSP(β = P−1) gives exactly BSP's steps. Deterministic for a seed. O(events·β)
// time for the sampled barriers and O(events·log P) for the others; fine for P = 10 000.
// Per-check sampling costs O(events·held·β): seconds for P = 200, long for P in the thousands.
// Throws std::invalid_argument when P·time / mean step time exceeds kMaxSimulatedSteps.
inline constexpr double kMaxSimulatedSteps = 2e8;
SimulationResult simulate(const SimulationOptions& options, const ps::Barrier& barrier);

}  // namespace gyre::simulation
