// gyre/ps/p2p_protocol.hpp — the peer-to-peer engine's layout (which peer owns a key) and its messages, checked before use.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "gyre/net/group.hpp"
#include "gyre/ps/ps_job.hpp"
#include "gyre/ps/ps_protocol.hpp"
#include "gyre/wire/channels.hpp"

namespace gyre::ps::p2p {

// Message types: the p2p channel (0x90–). Bodies are the parameter server's (ps_protocol.hpp):
// key-values or keys after an 8-byte prefix, every count checked against the bytes before allocating.
enum Message : std::uint16_t {
  kPush = wire::channels::kP2p.at(0),      // peer → owner: updates to fold in once; tag = the clock the step ends at
  kSet = wire::channels::kP2p.at(1),       // peer → owner: values to store as they are
  kGet = wire::channels::kP2p.at(2),       // peer → owner: tag = request; body: keys (sorted, distinct)
  kGetReply = wire::channels::kP2p.at(3),  // owner → peer: tag = request; body: key-values in the order asked
  kDone = wire::channels::kP2p.at(4),      // peer → every other peer: nothing more from me (after my last push)
  // Across processes, after the end, peer → peer 0: the values it owns (body), and in the meta
  // its report and how many pushes each of those keys took in, so that process 0 has the whole result.
  kHandOver = wire::channels::kP2p.at(5),
};

// Decoders of what arrives from the wire. Each throws std::runtime_error saying what was wrong
// (the caller names the sender): keys out of range, keys that `owner` does not own, values of
// the wrong length, a reply that is not exactly the keys asked.
KeyValues decode_owned_values(const net::Message& m, const P2pLayout& layout, int owner);
// A kGet: its keys, and in `clock` the clock every other peer's pushes must have reached before
// it is answered (std::numeric_limits<std::int64_t>::min(): answer at once).
std::vector<Key> decode_owned_keys(const net::Message& m, const P2pLayout& layout, int owner, std::int64_t& clock);
KeyValues decode_get_reply(const net::Message& m, std::span<const Key> asked, const P2pLayout& layout);

// What a peer hands to peer 0 at the end of a job across processes.
struct HandOver {
  KeyValues values;                      // the keys `owner` owns, with their values
  std::vector<std::uint64_t> applied;    // pushes folded into each of them, in the same order
  std::vector<std::uint64_t> counters;   // the peer's report, as p2p_job.cpp lays it out
};
net::Message encode_hand_over(const HandOver& h);
// Checks the keys against `owner` (the sender), the values' lengths, one count per key and the
// number of counters, before anything is kept.
HandOver decode_hand_over(const net::Message& m, const P2pLayout& layout, int owner, std::size_t counters);

}  // namespace gyre::ps::p2p
