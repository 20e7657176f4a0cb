// scheduler/rotation_schedule.cpp — ring orders per phase and the group positions they imply.
#include "gyre/scheduler/rotation_schedule.hpp"

#include <numeric>
#include <stdexcept>

#include "gyre/base/random.hpp"

namespace gyre::scheduler {

RotationSchedule::RotationSchedule(int workers, int blocks_per_worker, RingOrder order, std::uint64_t seed,
                                   std::uint64_t first_phase)
    : workers_(workers), group_size_(blocks_per_worker), order_(order), seed_(seed), first_phase_(first_phase) {
  if (workers < 1) throw std::invalid_argument("rotation needs at least one worker");
  if (blocks_per_worker < 1) throw std::invalid_argument("blocks per worker must be at least 1");
  std::vector<int> start(static_cast<std::size_t>(workers));
  std::iota(start.begin(), start.end(), 0);
  holders_.push_back(std::move(start));
}

std::vector<int> RotationSchedule::ring(std::uint64_t phase) const { return ring_from_start(first_phase_ + phase); }

std::vector<int> RotationSchedule::ring_from_start(std::uint64_t phase) const {
  std::vector<int> r(static_cast<std::size_t>(workers_));
  std::iota(r.begin(), r.end(), 0);
  if (order_ == RingOrder::kRandom) {
    std::uint64_t state = seed_ ^ (0xA24BAED4963EE407ull * (phase + 1));
    // Fisher–Yates by hand over splitmix64: std::shuffle's use of an engine is unspecified, and
    // ring orders must be the same on every platform and standard library.
    for (std::size_t i = r.size(); i > 1; --i) {
      const std::size_t j = static_cast<std::size_t>(splitmix64(state) % i);
      std::swap(r[i - 1], r[j]);
    }
  }
  return r;
}

std::vector<model::BlockId> RotationSchedule::group_blocks(int group) const {
  std::vector<model::BlockId> out;
  for (int j = 0; j < group_size_; ++j) out.push_back(static_cast<model::BlockId>(group + j * workers_));
  return out;
}

std::vector<int> RotationSchedule::holders(std::uint64_t phase) const {
  std::lock_guard lock(mutex_);
  phase += first_phase_;
  while (holders_.size() <= phase) {
    const std::uint64_t k = holders_.size() - 1;
    const std::vector<int> r = ring_from_start(k);
    std::vector<int> pos(r.size());
    for (std::size_t p = 0; p < r.size(); ++p) pos[static_cast<std::size_t>(r[p])] = static_cast<int>(p);
    std::vector<int> next(static_cast<std::size_t>(workers_));
    for (int g = 0; g < workers_; ++g) {
      const int start = pos[static_cast<std::size_t>(holders_[k][static_cast<std::size_t>(g)])];
      next[static_cast<std::size_t>(g)] = r[static_cast<std::size_t>((start + workers_ - 1) % workers_)];
    }
    holders_.push_back(std::move(next));
  }
  return holders_[phase];  // a copy, taken under the lock
}

int RotationSchedule::holder(std::uint64_t phase, int group) const {
  return holders(phase)[static_cast<std::size_t>(group)];
}

std::vector<model::BlockId> RotationSchedule::held_at_start(int worker, std::uint64_t phase) const {
  const std::vector<int> h = holders(phase);
  for (int g = 0; g < workers_; ++g)
    if (h[static_cast<std::size_t>(g)] == worker) return group_blocks(g);
  throw std::logic_error("rotation schedule: worker holds no group");
}

std::vector<Visit> RotationSchedule::visits(int worker, std::uint64_t phase) const {
  const std::vector<int> h = holders(phase);
  const std::vector<int> r = ring(phase);
  std::vector<int> pos(r.size());
  for (std::size_t p = 0; p < r.size(); ++p) pos[static_cast<std::size_t>(r[p])] = static_cast<int>(p);
  const int P = workers_;
  const int my_pos = pos[static_cast<std::size_t>(worker)];
  // group_at_pos[p]: the group starting the phase at ring position p.
  std::vector<int> group_at_pos(static_cast<std::size_t>(P));
  for (int g = 0; g < P; ++g) group_at_pos[static_cast<std::size_t>(pos[static_cast<std::size_t>(h[static_cast<std::size_t>(g)])])] = g;

  std::vector<Visit> out;
  out.reserve(static_cast<std::size_t>(P * group_size_));
  const int successor = r[static_cast<std::size_t>((my_pos + 1) % P)];
  for (int s = 0; s < P; ++s) {
    const int g = group_at_pos[static_cast<std::size_t>((my_pos - s + P) % P)];
    for (int j = 0; j < group_size_; ++j) {
      Visit v;
      v.block = static_cast<model::BlockId>(g + j * P);
      v.phase = phase;
      v.step = static_cast<std::uint32_t>(s);
      v.slot = static_cast<std::uint32_t>(j);
      v.seq = (phase * static_cast<std::uint64_t>(P) + static_cast<std::uint64_t>(s)) *
                  static_cast<std::uint64_t>(group_size_) + static_cast<std::uint64_t>(j);
      v.next = s == P - 1 ? Visit::kKeep : successor;
      out.push_back(v);
    }
  }
  return out;
}

}  // namespace gyre::scheduler
