// gyre/ps/ps_layout.hpp — who holds a key: a parameter-server job's servers, or a peer-to-peer job's peers.
#pragma once

#include <cstdint>
#include <vector>

#include "gyre/base/export.hpp"
#include "gyre/ps/worker.hpp"

namespace gyre::pipeline::ps {

enum class Sharding {
  kRange,  // server s holds the s-th of S contiguous runs of keys: neighbours together
  kHash,   // a mixed hash of the key picks the server: hot neighbouring keys spread out
};

// Ranks 0 … workers−1 are the workers, workers … workers+servers−1 the servers. Keys are
// 0 … keys−1, each holding value_size doubles.
struct GYRE_API PsLayout {
  int workers = 1;
  int servers = 1;
  Key keys = 0;
  std::uint32_t value_size = 1;
  Sharding sharding = Sharding::kRange;

  int server_of(Key key) const;  // 0 … servers−1
  int server_rank(int server) const { return workers + server; }
  std::vector<int> worker_ranks() const;
  std::vector<int> all_ranks() const;
  void validate() const;  // throws std::invalid_argument
};

}  // namespace gyre::pipeline::ps

namespace gyre::pipeline::p2p {

using ps::Key;
using ps::KeyValues;
using ps::Sharding;
using ps::Value;

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

}  // namespace gyre::pipeline::p2p
