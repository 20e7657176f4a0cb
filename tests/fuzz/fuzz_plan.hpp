// tests/fuzz/fuzz_plan.hpp — the receiver's plan the frame fuzzer checks messages against, shared with the seed writer.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>
#include <vector>

#include "gyre/locks/lock_protocol.hpp"
#include "gyre/model/block.hpp"
#include "gyre/ps/p2p_protocol.hpp"
#include "gyre/ps/ps_job.hpp"
#include "gyre/rotation/rotation_schedule.hpp"
#include "gyre/wire/channels.hpp"

namespace gyre_fuzz {

using namespace gyre;

// Rotation: 3 workers, depth 2, a random ring per phase; the scheduler is rank 3. Blocks of
// several shapes, one of them empty, so that a fuzzed block can match one and miss another.
inline constexpr int kWorkers = 3;
inline constexpr int kDepth = 2;
inline constexpr int kSchedulerRank = kWorkers;
inline const rotation::RotationSchedule& schedule() {
  static const rotation::RotationSchedule s(kWorkers, kDepth, rotation::RingOrder::kRandom, 7);
  return s;
}
inline const std::vector<model::BlockShape>& layout() {
  static const std::vector<model::BlockShape> l{{4, 8}, {3, 8}, {0, 8}, {5, 16}, {1, 8}, {2, 8}};
  return l;
}
// A block message's tag picks the receiver and how many phases it has started (the transport
// does not read the tag; the engine does not either, so the fuzzer may).
inline int receiver_of(std::uint64_t tag) { return static_cast<int>(tag % kWorkers); }
inline std::uint64_t phases_started_of(std::uint64_t tag) { return (tag >> 2) % 4; }
// Phase messages: the phase the receiver expects next.
inline std::uint64_t expected_phase_of(std::uint64_t tag) { return tag % 4; }

// The rounds engine: parameters of the job (Lasso's features); the values a round asked for (from the tag).
inline constexpr std::uint32_t kFeatures = 10;
inline std::size_t expected_sums_of(std::uint64_t tag) { return static_cast<std::size_t>(tag % 16); }

// Parameter server: 2 workers and 2 servers over 10 keys of 3 doubles. Updates and reads go to
// server 0; key lists come from server 1; a read asked for keys 0, 2 and 5.
inline ps::PsLayout ps_layout() {
  ps::PsLayout l;
  l.workers = 2;
  l.servers = 2;
  l.keys = 10;
  l.value_size = 3;
  return l;
}
inline constexpr int kUpdatedServer = 0;
// Peer to peer: the same keys and values over 2 peers, read by peer 0 as their owner.
inline ps::p2p::P2pLayout p2p_layout() {
  ps::p2p::P2pLayout l;
  l.peers = 2;
  l.keys = 10;
  l.value_size = 3;
  return l;
}
inline constexpr int kP2pOwner = 0;
inline constexpr std::size_t kP2pCounters = 6;  // a hand-over's report
inline constexpr int kListingServer = 1;
inline const std::vector<ps::Key>& asked_keys() {
  static const std::vector<ps::Key> k{0, 2, 5};
  return k;
}

// Lock service: 8 keys; a grant answers a request for 2 of {1, 3, 5}; a release comes from a
// rank that holds {3, 6}.
inline constexpr std::uint32_t kLockKeys = 8;
inline const std::vector<locks::LockKey>& held_locks() {
  static const std::vector<locks::LockKey> k{3, 6};
  return k;
}
inline constexpr std::uint32_t kGrantCount = 2;
inline const std::vector<locks::LockKey>& lock_candidates() {
  static const std::vector<locks::LockKey> k{1, 3, 5};
  return k;
}

// Collectives: rank 0 of members {0, 1} receives rank 1's parts; dense collectives of these
// sizes (in elements per member).
inline constexpr std::size_t kAllreduceDoubles = 5;
inline constexpr std::size_t kAllgatherFloats = 3;
inline constexpr std::size_t kBroadcastInts = 4;

// Averager: peers 1 and 2, a model of 4 doubles.
inline const std::vector<int>& averager_peers() {
  static const std::vector<int> p{1, 2};
  return p;
}
inline constexpr std::size_t kAveragedDoubles = 4;

// Gather: rows of 12 bytes, ids below 100.
inline constexpr std::size_t kRowBytes = 12;
inline constexpr std::uint64_t kRowIdLimit = 100;

// What the fuzzer does with each channel of the registry, in the registry's order. A channel added
// to gyre/wire/channels.hpp stops this file compiling until it is listed here, so a new protocol
// is not left out of receive() in frame_fuzz.cpp unnoticed.
struct ChannelPlan {
  std::string_view channel;
  std::string_view fuzzed;  // the decoders its messages reach, or why none
};
inline constexpr std::array kChannelPlans{
    ChannelPlan{"rotation", "blocks against the schedule, phase go and done"},
    ChannelPlan{"runtime", "failure notices"},
    ChannelPlan{"rounds", "round tasks and partials (a stop has nothing to decode)"},
    ChannelPlan{"clock", "queries, answers, finished notices"},
    ChannelPlan{"ps", "updates, reads, read replies, stop reports, key lists, hand-overs"},
    ChannelPlan{"lock", "acquire, release and grant against a lock table; abort notices"},
    ChannelPlan{"app:mf", "none: MF sends no messages of its own"},
    ChannelPlan{"app:lda", "none: LDA sends no messages of its own"},
    ChannelPlan{"app:logreg", "none: logistic regression sends no messages of its own"},
    ChannelPlan{"p2p", "pushes, sets, reads and hand-overs against an owner's keys, read replies (a done notice has no body)"},
    ChannelPlan{"collective", "parts of every collective, through a real Communicator; map-reduce parts' values"},
    ChannelPlan{"averager", "snapshots"},
    ChannelPlan{"delta", "pushed changes of 4 doubles, through check_change"},
    ChannelPlan{"gather", "local rows (held blocks come as rotation blocks)"},
    ChannelPlan{"user", "none: no gyre protocol uses it"},
    ChannelPlan{"tcp", "none: the frame header above is what the backend reads of them"},
    ChannelPlan{"rendezvous", "a registration's settings, through decode_settings above"},
    ChannelPlan{"handshake", "hello, challenge and proof records, straight from the bytes"},
};
constexpr bool plans_every_channel() {
  if (kChannelPlans.size() != wire::channels::kRegistry.size()) return false;
  for (std::size_t i = 0; i < kChannelPlans.size(); ++i)
    if (kChannelPlans[i].channel != wire::channels::kRegistry[i].name) return false;
  return true;
}
static_assert(plans_every_channel(), "kChannelPlans must list every channel of gyre::wire::channels::kRegistry, in order");

}  // namespace gyre_fuzz
