// tests/lib/wire/channels_test.cpp — the channel registry: disjoint, and every shipped message type in its own channel at its old number.
#include <doctest/doctest.h>

#include <array>
#include <cstdint>
#include <set>
#include <string_view>

#include "gyre/averaging/model_averager.hpp"
#include "gyre/collective/communicator.hpp"
#include "gyre/collective/delta_exchange.hpp"
#include "gyre/locks/lock_protocol.hpp"
#include "gyre/net/handshake.hpp"
#include "gyre/ps/p2p_protocol.hpp"
#include "gyre/ps/peer_barrier.hpp"
#include "gyre/ps/ps_protocol.hpp"
#include "gyre/rotation/gather.hpp"
#include "gyre/rotation/protocol.hpp"
#include "gyre/runtime/failure.hpp"
#include "gyre/runtime/parts_output.hpp"
#include "gyre/wire/channels.hpp"
#include "support/channel_holders.hpp"

namespace channels = gyre::wire::channels;
using channels::Channel;
using gyre::test::channel_holders;

namespace {

// Two channels that share their edge type 0x5F.
constexpr std::array kOverlapping{Channel{"a", 0x0050, 0x005F}, Channel{"b", 0x005F, 0x0060}};
// Neighbours: one ends where the next begins, without sharing a type.
constexpr std::array kAdjacent{Channel{"a", 0x0050, 0x005F}, Channel{"b", 0x0060, 0x006F}};
// The overlapping pair among others, not next to each other in the table.
constexpr std::array kOverlappingApart{Channel{"a", 0x0001, 0x000F}, Channel{"b", 0x1000, 0x10FF},
                                       Channel{"c", 0x0020, 0x002F}, Channel{"d", 0x10F0, 0x1100}};
// A registered protocol's type taken by a would-be new channel.
constexpr std::array kCollidingWithLock{channels::kLock, Channel{"new", 0x0057, 0x0057}};

// A message type shipped in gyre, the channel it belongs to, and the number it has always had on
// the wire (the frame format and the fuzzer's seeds depend on these numbers). The Lasso app's
// round messages are checked the same way in tests/apps/lasso/lasso_wire_test.cpp.
struct Shipped {
  std::uint16_t type;
  Channel channel;
  std::uint16_t wire;
};

namespace ps = gyre::ps;
namespace rotation = gyre::rotation;
namespace locks = gyre::locks;
constexpr std::array kShipped{
    Shipped{rotation::kBlockMessage, channels::kRotation, 1},
    Shipped{rotation::kPhaseGo, channels::kRotation, 2},
    Shipped{rotation::kPhaseDone, channels::kRotation, 3},
    Shipped{rotation::kStop, channels::kRotation, 4},
    Shipped{gyre::runtime::kFailureNotice, channels::kRuntime, 0x10},
    Shipped{ps::kHandOver, channels::kPs, 0x48},
    Shipped{ps::kClockQuery, channels::kClock, 0x30},
    Shipped{ps::kClockAnswer, channels::kClock, 0x31},
    Shipped{ps::kClockFinished, channels::kClock, 0x32},
    Shipped{ps::kPush, channels::kPs, 0x40},
    Shipped{ps::kSet, channels::kPs, 0x41},
    Shipped{ps::kGet, channels::kPs, 0x42},
    Shipped{ps::kGetReply, channels::kPs, 0x43},
    Shipped{ps::kClock, channels::kPs, 0x44},
    Shipped{ps::kStop, channels::kPs, 0x45},
    Shipped{ps::kKeys, channels::kPs, 0x46},
    Shipped{ps::kKeysReply, channels::kPs, 0x47},
    Shipped{locks::kLockAcquire, channels::kLock, 0x50},
    Shipped{locks::kLockGrant, channels::kLock, 0x51},
    Shipped{locks::kLockNoneFree, channels::kLock, 0x52},
    Shipped{locks::kLockRelease, channels::kLock, 0x53},
    Shipped{locks::kLockFinish, channels::kLock, 0x54},
    Shipped{locks::kLockStop, channels::kLock, 0x55},
    Shipped{locks::kLockAbort, channels::kLock, 0x56},
    Shipped{locks::kLockWake, channels::kLock, 0x57},
    Shipped{gyre::ps::p2p::kPush, channels::kP2p, 0x90},
    Shipped{gyre::ps::p2p::kSet, channels::kP2p, 0x91},
    Shipped{gyre::ps::p2p::kGet, channels::kP2p, 0x92},
    Shipped{gyre::ps::p2p::kGetReply, channels::kP2p, 0x93},
    Shipped{gyre::ps::p2p::kDone, channels::kP2p, 0x94},
    Shipped{gyre::collective::kCollectiveMessage, channels::kCollective, 0x0100},
    Shipped{gyre::averaging::kAveragerMessage, channels::kAverager, 0x0101},
    Shipped{gyre::collective::kDeltaMessage, channels::kDelta, 0x0110},
    Shipped{gyre::rotation::kCollectRequest, channels::kGather, 0x0201},
    Shipped{gyre::rotation::kLocalRows, channels::kGather, 0x0202},
    Shipped{gyre::runtime::kPartsWhere, channels::kGather, 0x0203},
    Shipped{gyre::runtime::kPartWritten, channels::kGather, 0x0204},
    Shipped{gyre::runtime::kPartsCommitted, channels::kGather, 0x0205},
    Shipped{gyre::net::kHelloType, channels::kHandshake, 0xFF20},
    Shipped{gyre::net::kChallengeType, channels::kHandshake, 0xFF21},
    Shipped{gyre::net::kProofType, channels::kHandshake, 0xFF22},
};

constexpr bool each_in_its_channel_at_its_number() {
  for (const Shipped& s : kShipped)
    if (!s.channel.contains(s.type) || s.type != s.wire || channel_holders(s.type) != 1) return false;
  return true;
}

constexpr bool each_registered(const Channel& c) {
  for (const Channel& r : channels::kRegistry)
    if (r.name == c.name && r.first == c.first && r.last == c.last) return true;
  return false;
}

}  // namespace

TEST_CASE("overlapping channels are detected, neighbours are not") {
  static_assert(channels::overlaps(kOverlapping[0], kOverlapping[1]));
  static_assert(!channels::disjoint(kOverlapping));
  static_assert(channels::disjoint(kAdjacent));
  static_assert(!channels::disjoint(kOverlappingApart));
  static_assert(!channels::disjoint(kCollidingWithLock));
  // The same functions at run time.
  CHECK(channels::overlaps(kOverlapping));
  CHECK(channels::disjoint(kAdjacent));
  CHECK_FALSE(channels::disjoint(kOverlappingApart));
}

TEST_CASE("the registry is disjoint, well formed and holds no type 0") {
  static_assert(channels::disjoint(channels::kRegistry));
  static_assert(channels::well_formed(channels::kRegistry));
  static_assert(channel_holders(0) == 0);
  static_assert(!channels::well_formed(std::array{Channel{"empty", 0x10, 0x0F}}));
  static_assert(!channels::well_formed(std::array{Channel{"zero", 0, 0x0F}}));
  std::set<std::string_view> names;
  for (const Channel& c : channels::kRegistry) CHECK_MESSAGE(names.insert(c.name).second, c.name);
}

TEST_CASE("every shipped message type lies in its own channel, at the number it always had") {
  static_assert(each_in_its_channel_at_its_number());
  for (const Shipped& s : kShipped) {
    CAPTURE(s.channel.name);
    CAPTURE(s.type);
    CHECK(each_registered(s.channel));
    CHECK(s.channel.contains(s.type));
    CHECK(s.type == s.wire);
    CHECK(channel_holders(s.type) == 1);
  }
}

TEST_CASE("the transport's range is above every other channel, and only the transport's channels are in it") {
  for (const Channel& c : channels::kRegistry) {
    CAPTURE(c.name);
    const bool transport = c.name == "tcp" || c.name == "rendezvous" || c.name == "handshake";
    CHECK(channels::kTransport.contains(c) == transport);
    CHECK(channels::overlaps(channels::kTransport, c) == transport);
  }
}

TEST_CASE("a user channel lies in the user range, apart from every library channel") {
  constexpr Channel mine = channels::user_channel<0x1000, 0x100F>("mine");
  constexpr Channel widest = channels::user_channel<0x1000, 0x7FFF>("widest");
  static_assert(mine.at(0) == 0x1000 && mine.at(15) == 0x100F && mine.size() == 16);
  static_assert(channels::kUser.contains(mine) && channels::kUser.contains(widest));
  for (const Channel& c : channels::kRegistry)
    if (c.name != channels::kUser.name) CHECK_FALSE(channels::overlaps(c, widest));
  CHECK(mine.name == "mine");
}
