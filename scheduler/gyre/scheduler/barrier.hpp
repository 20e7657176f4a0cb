// gyre/scheduler/barrier.hpp — whether a worker may start its next step, from its clock and its peers' clocks.
#pragma once

#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "gyre/base/export.hpp"
#include "gyre/base/random.hpp"

namespace gyre::scheduler {

// A worker's clock is the number of steps it has completed. Before starting step c+1 a worker
// at clock c asks its barrier; the barrier looks at some peers' clocks and says go or wait.
enum class BarrierKind {
  kBsp,   // every peer has completed c steps (SSP with s = 0)
  kSsp,   // every peer has completed c − s steps
  kAsp,   // nobody is waited for
  kPbsp,  // β peers sampled without replacement have completed c steps
  kPssp,  // β sampled peers have completed c − s steps
};

struct GYRE_API BarrierSpec {
  BarrierKind kind = BarrierKind::kBsp;
  std::int64_t staleness = 0;  // s, for SSP and pSSP
  int sample = 0;              // β, for pBSP and pSSP

  // "bsp", "ssp:S", "asp", "pbsp:BETA" or "pssp:BETA:S"; throws std::invalid_argument saying
  // what was expected.
  static BarrierSpec parse(std::string_view text);
  // Every spec in a comma-separated list, in order.
  static std::vector<BarrierSpec> parse_list(std::string_view text);
  std::string name() const;  // the canonical text parse() accepts, e.g. "pssp:10:4"
};

// What a barrier reads of the other workers' clocks (possibly stale: a peer may be further on).
class GYRE_API PeerClocks {
 public:
  virtual ~PeerClocks() = default;
  virtual std::int64_t clock(int worker) const = 0;
  // The lowest clock over every other worker; only the global barriers (BSP, SSP) read it, so
  // a view kept for them need not answer clock() cheaply, nor one kept for sampled barriers this.
  virtual std::int64_t slowest() const = 0;
};

// Clocks held in a vector indexed by worker, as a simulator or a worker's table of answers has them.
class GYRE_API ClockList final : public PeerClocks {
 public:
  ClockList(const std::vector<std::int64_t>& clocks, int self) : clocks_(clocks), self_(self) {}
  std::int64_t clock(int worker) const override { return clocks_[static_cast<std::size_t>(worker)]; }
  std::int64_t slowest() const override;

 private:
  const std::vector<std::int64_t>& clocks_;
  int self_;
};

enum class Decision { kAdvance, kWait };

// One barrier rule, shared by the simulator and every engine: the engines differ only in how
// they learn peers' clocks (a table, or questions over the data plane).
class GYRE_API Barrier {
 public:
  // The clock a worker that has finished for good reports, so that nobody waits for it.
  static constexpr std::int64_t kFinished = std::numeric_limits<std::int64_t>::max();

  explicit Barrier(BarrierSpec spec);

  const BarrierSpec& spec() const noexcept { return spec_; }
  // Decides from slowest() (BSP, SSP) rather than from the sampled peers' clock().
  bool global() const noexcept;
  // How many clocks ahead of the peers it looks at a worker may start a step; ASP has no bound.
  std::int64_t staleness() const noexcept;
  // The clock every looked-at peer must have reached for a worker at `clock` to go on.
  std::int64_t required(std::int64_t clock) const noexcept;

  // The peers that decide `self`'s next step, among `workers` (0 … workers−1): β of the others
  // uniformly without replacement for pBSP and pSSP (all of them if β ≥ workers − 1), none
  // for the others. A step draws once and then waits for that sample, so β = workers − 1 is BSP
  // (or SSP) exactly. Only the engine's generator gives the randomness: runs repeat with a seed.
  void draw(int self, int workers, Random& random, std::vector<int>& sample) const;

  Decision decide(std::int64_t clock, std::span<const int> sample, const PeerClocks& peers) const;

 private:
  BarrierSpec spec_;
};

}  // namespace gyre::scheduler
