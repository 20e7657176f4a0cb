// gyre/ps/barrier.hpp — whether a worker may start its next step, from its clock and its peers' clocks: the
// BarrierRule interface and the rules gyre ships (BSP, SSP, ASP, pBSP, pSSP).
#pragma once

#include <cstdint>
#include <limits>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "gyre/base/export.hpp"
#include "gyre/base/random.hpp"

namespace gyre::ps {

// The interface of a barrier rule: from a worker's clock and its peers' clocks, go or wait.

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

// A worker's clock is the number of steps it has completed. Before starting step c+1 a worker
// at clock c asks its barrier; the barrier looks at some peers' clocks and says go or wait.
// The built-in rules, each a BarrierRule (above) made by Barrier(BarrierSpec):
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

// When a held worker draws its β peers (pBSP, pSSP, any rule looking at fewer than every peer).
// The default is per-check, the rule the Owl book's figures follow (pBSP(4) ≈ SSP(4) in its
// 200-worker simulation; per-step gives 46 steps against 81: tools/bench/barriers.md).
enum class Sampling {
  // Once per step, then it waits for those: β = P − 1 is BSP (or SSP) exactly, but one slow
  // peer in the sample holds the worker however fast the others are, so waits chain.
  kPerStep,
  // Afresh at every re-check while held (the rule as the Owl book states PSP): a held worker
  // looks at a new sample each time it looks again. β = P − 1 is still BSP (or SSP).
  kPerCheck,
};
// "per-step" or "per-check"; throws std::invalid_argument saying what was expected.
GYRE_API Sampling parse_sampling(std::string_view text);
GYRE_API std::string sampling_name(Sampling sampling);

// A rule and how its peers are sampled: what an engine's config holds. Built from a spec (the
// built-in rules) or from an embedder's own BarrierRule; copies share the rule.
class GYRE_API Barrier {
 public:
  // The clock a worker that has finished for good reports, so that nobody waits for it.
  static constexpr std::int64_t kFinished = std::numeric_limits<std::int64_t>::max();

  // Implicit, so a BarrierSpec is accepted wherever a Barrier is configured.
  Barrier(BarrierSpec spec = {}, Sampling sampling = Sampling::kPerCheck);
  // Throws std::invalid_argument for a null rule.
  Barrier(std::shared_ptr<const BarrierRule> rule, Sampling sampling = Sampling::kPerCheck);

  const BarrierRule& rule() const noexcept { return *rule_; }
  std::string name() const { return rule_->name(); }
  Sampling sampling() const noexcept { return sampling_; }
  // Decides from slowest() (BSP, SSP) rather than from the sampled peers' clock().
  bool global() const noexcept { return rule_->slowest_suffices(); }
  // The clock every looked-at peer must have reached for a worker at `clock` to go on.
  std::int64_t required(std::int64_t clock) const { return rule_->required(clock); }
  // Textbook BSP: every worker waits for every other's previous step, whatever its clock.
  bool bsp() const {
    constexpr std::int64_t probe = std::int64_t{1} << 40;
    return global() && required(probe) == probe;
  }

  // The peers that decide `self`'s next step, among `workers` (0 … workers−1): none for a
  // global rule (it reads slowest()) or one looking at nobody, every other worker for a rule
  // looking at all of them, and otherwise β of the others uniformly without replacement (all of
  // them if β ≥ workers − 1). When it is drawn again is sampling()'s. Only the engine's
  // generator gives the randomness: runs repeat with a seed.
  void draw(int self, int workers, Random& random, std::vector<int>& sample) const;

  // The rule's decision on the clocks of `sample` (or on slowest(), for a global rule).
  Decision decide(std::int64_t clock, std::span<const int> sample, const PeerClocks& peers) const;

  // What an engine throws when the rule breaks its contract (BarrierRule, above) instead of
  // waiting for ever: it says wait though every looked-at peer is at required().
  std::logic_error waits_for_nothing() const {
    return std::logic_error("barrier " + name() + " says wait though every looked-at peer reached the clock it requires");
  }

 private:
  std::shared_ptr<const BarrierRule> rule_;
  Sampling sampling_;
};

}  // namespace gyre::ps
