// gyre/pipeline/ps_layout.hpp — who is a server and who a worker in a parameter-server job, and which server holds a key.
#pragma once

#include <cstdint>
#include <vector>

#include "gyre/base/export.hpp"
#include "gyre/pipeline/ps_protocol.hpp"

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
