// tests/lib/ps/quorum_rule.hpp — an embedder's own barrier for the tests: go when half the looked-at peers are within W steps.
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <string>

#include "gyre/ps/barrier.hpp"

namespace gyre_test {

// Looser than SSP(W): the slower half of the looked-at peers may be any distance behind. So
// its bound is not on the slowest but on the median: at least ⌈n/2⌉ of the n looked-at peers
// are at clock c − W or later when a worker at clock c starts a step.
class QuorumRule final : public gyre::ps::BarrierRule {
 public:
  QuorumRule(int peers, std::int64_t within) : peers_(peers), within_(within) {}
  std::string name() const override {
    return "quorum:" + (peers_ == kEveryPeer ? std::string("all") : std::to_string(peers_)) + ":" + std::to_string(within_);
  }
  int peers() const override { return peers_; }
  std::int64_t required(std::int64_t clock) const override { return clock - within_; }
  gyre::ps::Decision decide(std::int64_t clock, std::span<const std::int64_t> peers) const override {
    const auto near = std::count_if(peers.begin(), peers.end(), [&](std::int64_t c) { return c >= required(clock); });
    return 2 * static_cast<std::size_t>(near) >= peers.size() ? gyre::ps::Decision::kAdvance
                                                               : gyre::ps::Decision::kWait;
  }

 private:
  int peers_;
  std::int64_t within_;
};

// How many of `others` the rule needs near: ⌈others/2⌉.
inline int quorum_of(int others) { return (others + 1) / 2; }

}  // namespace gyre_test
