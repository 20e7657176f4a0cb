// gyre/ps/ps_layout.cpp — key sharding over the servers.
#include "gyre/ps/ps_job.hpp"

#include <numeric>
#include <stdexcept>

#include "gyre/base/random.hpp"

namespace gyre::ps {

int PsLayout::server_of(Key key) const {
  if (sharding == Sharding::kRange) {
    // The first keys % S servers hold one key more than the others.
    const Key s = static_cast<Key>(servers), per = keys / s, rest = keys % s;
    const Key in_bigger = rest * (per + 1);
    return static_cast<int>(key < in_bigger ? key / (per + 1) : rest + (key - in_bigger) / per);
  }
  // A hash: consecutive keys land on unrelated servers.
  return static_cast<int>(mix64(key) % static_cast<std::uint64_t>(servers));
}

std::vector<int> PsLayout::worker_ranks() const {
  std::vector<int> r(static_cast<std::size_t>(workers));
  std::iota(r.begin(), r.end(), 0);
  return r;
}

std::vector<int> PsLayout::all_ranks() const {
  std::vector<int> r(static_cast<std::size_t>(workers + servers));
  std::iota(r.begin(), r.end(), 0);
  return r;
}

void PsLayout::validate() const {
  if (workers < 1 || servers < 1) throw std::invalid_argument("parameter server: at least one worker and one server");
  if (keys < 1) throw std::invalid_argument("parameter server: no keys");
  if (value_size < 1 || value_size > (1u << 24)) throw std::invalid_argument("parameter server: value size must be 1 … 2^24");
}

}  // namespace gyre::ps
