// gyre/wire/channels.hpp — the one registry of message-type ranges (net::Message::type), checked at compile time.
//
// Every protocol that travels over a net::Group owns a channel: a range of message types that
// no other protocol uses. Receivers pick messages from a shared inbox by type alone, so two
// protocols with one type between them would take each other's messages; the registry below
// makes that a compile error instead of a silent mix-up. A protocol derives its types from its
// channel (`kLockGrant = kLock.at(1)`), which also fails to compile when it runs past
// the channel's end.
//
// Type 0 is no protocol's: it is what an unset net::Message::type holds.
//
// Your own protocols (an embedding service, a new app outside this tree) take their types from
// the user range, 0x1000–0x7FFF, which gyre never uses:
//
//   inline constexpr auto kMyChannel = user_channel<0x1000, 0x100F>("my-protocol");
//   enum MyMessage : std::uint16_t { kAsk = kMyChannel.at(0), kAnswer = kMyChannel.at(1) };
//   static_assert(disjoint(std::array{kMyChannel, kMyOtherChannel}));
//
// A user channel outside that range fails to compile, so it cannot collide with gyre's.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

namespace gyre::wire::channels {

namespace detail {
// Not constexpr on purpose: reaching it in a constant expression is the compile error, and its
// name is what the compiler prints.
inline void message_type_past_the_end_of_its_channel() {}
}  // namespace detail

struct Channel {
  std::string_view name;
  std::uint16_t first = 0;
  std::uint16_t last = 0;  // inclusive, so a channel may end at 0xFFFF

  constexpr bool contains(std::uint16_t type) const { return first <= type && type <= last; }
  constexpr bool contains(const Channel& c) const { return first <= c.first && c.last <= last; }
  constexpr std::size_t size() const { return first <= last ? std::size_t{last} - first + 1 : 0; }

  // The channel's `offset`-th message type; evaluated at compile time only, and an offset past
  // the channel's end does not compile.
  consteval std::uint16_t at(std::size_t offset) const {
    if (offset >= size()) detail::message_type_past_the_end_of_its_channel();
    return static_cast<std::uint16_t>(first + offset);
  }
};

constexpr bool overlaps(const Channel& a, const Channel& b) { return a.first <= b.last && b.first <= a.last; }

// Whether any two channels of `table` share a type.
constexpr bool overlaps(std::span<const Channel> table) {
  for (std::size_t i = 0; i < table.size(); ++i)
    for (std::size_t j = i + 1; j < table.size(); ++j)
      if (overlaps(table[i], table[j])) return true;
  return false;
}

constexpr bool disjoint(std::span<const Channel> table) { return !overlaps(table); }

// Every channel non-empty, type 0 in none of them.
constexpr bool well_formed(std::span<const Channel> table) {
  for (const Channel& c : table)
    if (c.first == 0 || c.first > c.last) return false;
  return true;
}

// The library's channels (the first protocols were numbered before the registry; their types
// are unchanged, so the wire format is too).
inline constexpr Channel kRotation{"rotation", 0x0001, 0x000F};  // rotation/protocol.hpp: blocks, phases, stop
inline constexpr Channel kRuntime{"runtime", 0x0010, 0x001F};    // runtime/failure.hpp: the failure notice
inline constexpr Channel kRounds{"rounds", 0x0020, 0x002F};      // rounds/rounds_protocol.hpp
inline constexpr Channel kClock{"clock", 0x0030, 0x003F};        // ps/peer_barrier.hpp
inline constexpr Channel kPs{"ps", 0x0040, 0x004F};              // ps/ps_protocol.hpp
inline constexpr Channel kLock{"lock", 0x0050, 0x005F};          // locks/lock_protocol.hpp
inline constexpr Channel kMf{"app:mf", 0x0060, 0x006F};          // reserved for apps/mf (none used yet)
inline constexpr Channel kLda{"app:lda", 0x0070, 0x007F};        // reserved for apps/lda (none used yet)
inline constexpr Channel kLogreg{"app:logreg", 0x0080, 0x008F};  // reserved for apps/logreg (none used yet)
inline constexpr Channel kP2p{"p2p", 0x0090, 0x009F};            // ps/p2p_protocol.hpp
// One type: collective parts are matched by tag (operation and step), not by type.
inline constexpr Channel kCollective{"collective", 0x0100, 0x0100};  // collective/communicator.hpp
inline constexpr Channel kAverager{"averager", 0x0101, 0x010F};      // collective/model_averager.hpp
inline constexpr Channel kDelta{"delta", 0x0110, 0x0110};            // collective/delta_exchange.hpp
inline constexpr Channel kGather{"gather", 0x0201, 0x020F};          // rotation/gather.hpp, parts_output.hpp
inline constexpr Channel kUser{"user", 0x1000, 0x7FFF};              // users' own protocols: user_channel below
// The transport's own (net/tcp.cpp refuses to send these for the layers above).
inline constexpr Channel kTcp{"tcp", 0xFF00, 0xFF0F};                // net/tcp.cpp: goodbye, heartbeat
inline constexpr Channel kRendezvous{"rendezvous", 0xFF10, 0xFF1F};  // cluster/rendezvous.cpp
inline constexpr Channel kHandshake{"handshake", 0xFF20, 0xFF2F};    // net/handshake.{hpp,cpp}

// Ordered by type; static_asserts below keep it disjoint.
inline constexpr std::array kRegistry{
    kRotation, kRuntime, kRounds, kClock, kPs, kLock, kMf, kLda, kLogreg, kP2p,  // 0x0001-0x00FF: control planes, apps
    kCollective, kAverager, kDelta, kGather,                    // 0x0100-0x0FFF: collectives, gathering
    kUser,                                                      // 0x1000-0x7FFF: yours
    kTcp, kRendezvous, kHandshake,                              // 0xFF00-0xFFFF: the transport
};

// Types from here up are the transport's; the layers above never send one.
inline constexpr Channel kTransport{"transport", 0xFF00, 0xFFFF};

static_assert(well_formed(kRegistry), "a registered channel is empty or holds type 0");
static_assert(disjoint(kRegistry), "two registered channels share message types");
static_assert(kTransport.contains(kTcp) && kTransport.contains(kRendezvous) && kTransport.contains(kHandshake));
static_assert(kTransport.first > kUser.last);

// A channel for your own protocol: [First, Last] must lie in the user range, which no channel of
// gyre's overlaps, so the check is made here, when your code compiles.
template <std::uint16_t First, std::uint16_t Last>
consteval Channel user_channel(std::string_view name) {
  static_assert(First <= Last, "a user channel's first type must not be past its last");
  static_assert(kUser.first <= First && Last <= kUser.last,
                "a user channel must lie in the user range (kUser, 0x1000-0x7FFF)");
  return Channel{name, First, Last};
}

}  // namespace gyre::wire::channels
