// gyre/ps/barrier_rule.hpp — the interface of a barrier rule: from a worker's clock and its peers' clocks, go or wait.
#pragma once

#include <cstdint>
#include <limits>
#include <span>
#include <string>

#include "gyre/base/export.hpp"

namespace gyre::scheduler {

enum class Decision { kAdvance, kWait };

// A barrier rule, as an embedder writes one and as the built-in BSP, SSP, ASP, pBSP and pSSP
// are written (barrier.hpp). Engines (the parameter server's PeerBarrier, the simulator, and any
// later one) only gather clocks and call it: before starting step c+1 a worker at clock c hands
// decide() the clocks of the peers the rule looks at.
//
// A rule is shared by every worker thread of a job, so its member functions must be safe to
// call concurrently (keep them free of mutable state): randomness belongs to the engines, which
// draw the sample from their own seeded generators so runs repeat.
class GYRE_API BarrierRule {
 public:
  // peers() for a rule that looks at every other worker.
  static constexpr int kEveryPeer = std::numeric_limits<int>::max();

  virtual ~BarrierRule() = default;

  // For messages, CSV rows and metrics, e.g. "pssp:10:4".
  virtual std::string name() const = 0;
  // How many peers the rule looks at: 0, β (drawn uniformly without replacement by the engine,
  // all of them when β ≥ P − 1), or kEveryPeer.
  virtual int peers() const = 0;
  // True if decide() depends on the peers only through their lowest clock. Engines then pass
  // that one clock rather than all of them (how BSP and SSP stay O(log P) per step in the
  // simulator), and the parameter server may hold reads until every worker is at required().
  virtual bool slowest_suffices() const { return false; }
  // The clock a looked-at peer is asked to reach: once every looked-at peer has reached it,
  // decide() must say kAdvance (engines wait for peers to get there, so a rule breaking this
  // would wait for ever; they throw std::logic_error instead). Must not decrease as `clock`
  // grows. std::numeric_limits<std::int64_t>::min() for a rule that never waits.
  virtual std::int64_t required(std::int64_t clock) const = 0;
  // `peers`: the looked-at peers' clocks as the engine last heard them (they may be further on
  // by now; a finished peer's clock is std::numeric_limits<std::int64_t>::max()), in the order
  // drawn; for slowest_suffices() rules, just the lowest of them.
  virtual Decision decide(std::int64_t clock, std::span<const std::int64_t> peers) const = 0;
};

}  // namespace gyre::scheduler
