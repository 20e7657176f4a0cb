// apps/logreg/logreg/config.hpp — settings of data-parallel logistic regression on the parameter-server or peer-to-peer engine.
#pragma once

#include <cstdint>
#include <string>

#include "gyre/scheduler/barrier.hpp"

namespace gyre::logreg {

enum class Transport { kInproc, kTcp };  // tcp: every rank in this process, over loopback
// Where the weights live: on parameter servers, or owned by the workers themselves (peer-to-peer, no server).
enum class Engine { kPs, kP2p };

struct LogregConfig {
  int workers = 1;
  int servers = 1;                 // parameter-server shards (kPs only; under kP2p every worker owns a shard)
  Engine engine = Engine::kPs;
  scheduler::Barrier barrier;      // default BSP (per-step sampling)
  double learning_rate = 0.5;
  double decay = 0;                // step c uses learning_rate / (1 + decay·c)
  double l2 = 1e-4;                // λ of λ/2‖w‖²
  int batch = 64;                  // rows per worker per step
  std::int64_t max_steps = 200;    // per worker
  double max_seconds = 0;          // > 0: a worker also stops once this much wall time has passed
  int eval_every = 10;             // worker 0 evaluates every this many steps (and at its last)
  std::uint32_t block = 64;        // weights per parameter-server key
  std::string step_delay = "none"; // injected straggling per step: none, fixed:MS, uniform:LO:HI, gamma:SHAPE:SCALE
  Transport transport = Transport::kInproc;
  std::uint64_t seed = 1;

  void validate() const;  // throws std::invalid_argument
};

}  // namespace gyre::logreg
