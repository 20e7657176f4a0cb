// gyre/pipeline/p2p_protocol.hpp — the peer-to-peer engine's layout (which peer owns a key) and its messages, checked before use.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "gyre/base/export.hpp"
#include "gyre/net/message.hpp"
#include "gyre/pipeline/ps_layout.hpp"
#include "gyre/pipeline/ps_protocol.hpp"
#include "gyre/wire/channels.hpp"

namespace gyre::pipeline::p2p {

using ps::Key;
using ps::KeyValues;
using ps::Sharding;
using ps::Value;

// Message types: the p2p channel (0x90–). Bodies are the parameter server's (ps_protocol.hpp):
// key-values or keys after an 8-byte prefix, every count checked against the bytes before allocating.
enum Message : std::uint16_t {
  kPush = channels::kP2p.at(0),      // peer → owner: updates to fold in once; tag = the clock the step ends at
  kSet = channels::kP2p.at(1),       // peer → owner: values to store as they are
  kGet = channels::kP2p.at(2),       // peer → owner: tag = request; body: keys (sorted, distinct)
  kGetReply = channels::kP2p.at(3),  // owner → peer: tag = request; body: key-values in the order asked
  kDone = channels::kP2p.at(4),      // peer → every other peer: nothing more from me (after my last push)
};

// Peers are ranks 0 … peers−1; every one computes and every one owns a part of the keys
// 0 … keys−1 (each value_size doubles), by contiguous ranges or by hash, as the parameter
// server deals keys to its servers (ps::PsLayout::server_of, here with one "server" per peer).
struct GYRE_API P2pLayout {
  int peers = 1;
  Key keys = 0;
  std::uint32_t value_size = 1;
  Sharding sharding = Sharding::kRange;

  int owner_of(Key key) const;  // 0 … peers−1
  std::vector<int> peer_ranks() const;
  void validate() const;  // throws std::invalid_argument
};

// Decoders of what arrives from the wire. Each throws std::runtime_error saying what was wrong
// (the caller names the sender): keys out of range, keys that `owner` does not own, values of
// the wrong length, a reply that is not exactly the keys asked.
GYRE_API KeyValues decode_owned_values(const net::Message& m, const P2pLayout& layout, int owner);
GYRE_API std::vector<Key> decode_owned_keys(const net::Message& m, const P2pLayout& layout, int owner);
GYRE_API KeyValues decode_get_reply(const net::Message& m, std::span<const Key> asked, const P2pLayout& layout);

}  // namespace gyre::pipeline::p2p
