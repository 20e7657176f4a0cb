// gyre/net/faults.hpp — a Group decorator that delays messages and can cut links, for tests and benchmarks.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "gyre/base/export.hpp"
#include "gyre/net/group.hpp"

#include "gyre/base/random.hpp"

namespace gyre::net {

struct GYRE_API FaultSpec {
  enum class Delay { kNone, kFixed, kUniform, kGamma };
  Delay delay = Delay::kNone;
  double a = 0;  // fixed: milliseconds; uniform: lowest ms; gamma: shape
  double b = 0;  // uniform: highest ms; gamma: scale in ms
  std::uint64_t close_after = 0;  // fail the group after this many sent messages (0: never)
  std::uint64_t seed = 1;

  // Every number of a spec is finite and at most an hour: a larger one is a typo, not a test.
  static constexpr double kMaxMilliseconds = 3'600'000;
  // "none", "fixed:MS", "uniform:LO:HI" or "gamma:SHAPE:SCALE"; throws std::invalid_argument.
  static FaultSpec parse_delay(const std::string& text);
  bool active() const { return delay != Delay::kNone || close_after > 0; }
  // One delay of this law, in milliseconds, from `random` (the same numbers on every platform).
  double draw_ms(Random& random) const;
};

// Messages to other ranks leave after a delay drawn per message (order per link is kept: a
// message never overtakes an earlier one on its link); messages to itself are not delayed.
// With close_after = N, the N+1-th send closes the inner group, which its peers see as this
// rank failing. Receiving is untouched.
GYRE_API std::unique_ptr<Group> with_faults(std::unique_ptr<Group> inner, const FaultSpec& spec);

}  // namespace gyre::net
