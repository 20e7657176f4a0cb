// gyre/rotation/rotation_schedule.cpp — ring orders per phase and the group positions they imply.
#include "gyre/rotation/rotation_schedule.hpp"

#include <numeric>
#include <stdexcept>

#include "gyre/base/random.hpp"

namespace gyre::rotation {

RotationSchedule::RotationSchedule(int workers, int blocks_per_worker, RingOrder order, std::uint64_t seed,
                                   std::uint64_t first_phase)
    : workers_(workers), group_size_(blocks_per_worker), order_(order), seed_(seed), first_phase_(first_phase) {
  if (workers < 1) throw std::invalid_argument("rotation needs at least one worker");
  if (blocks_per_worker < 1) throw std::invalid_argument("blocks per worker must be at least 1");
}

std::vector<int> RotationSchedule::ring(std::uint64_t phase) const { return ring_from_start(first_phase_ + phase); }

std::vector<int> RotationSchedule::ring_from_start(std::uint64_t phase) const {
  std::vector<int> r(static_cast<std::size_t>(workers_));
  std::iota(r.begin(), r.end(), 0);
  if (order_ == RingOrder::kRandom) {
    std::uint64_t state = seed_ ^ (0xA24BAED4963EE407ull * (phase % kRingPeriod + 1));
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

namespace {

// `first` then `second`: where w ends up after both moves.
std::vector<int> then(const std::vector<int>& first, const std::vector<int>& second) {
  std::vector<int> out(first.size());
  for (std::size_t w = 0; w < first.size(); ++w) out[w] = second[static_cast<std::size_t>(first[w])];
  return out;
}

std::vector<int> identity(int n) {
  std::vector<int> out(static_cast<std::size_t>(n));
  std::iota(out.begin(), out.end(), 0);
  return out;
}

}  // namespace

void RotationSchedule::build_period() const {
  if (!within_period_.empty()) return;
  within_period_.push_back(identity(workers_));
  for (std::uint64_t k = 0; k < kRingPeriod; ++k) {
    // In phase k each group moves P − 1 positions along ring k: it ends one before its start.
    const std::vector<int> r = ring_from_start(k);
    std::vector<int> step(r.size());
    for (std::size_t p = 0; p < r.size(); ++p)
      step[static_cast<std::size_t>(r[p])] = r[(p + r.size() - 1) % r.size()];
    within_period_.push_back(then(within_period_.back(), step));
  }
  after_periods_ = identity(workers_);
}

std::vector<int> RotationSchedule::holders(std::uint64_t phase) const {
  phase += first_phase_;
  const auto P = static_cast<std::uint64_t>(workers_);
  std::vector<int> h(static_cast<std::size_t>(workers_));
  if (order_ == RingOrder::kFixed) {  // every phase moves each group to the worker before
    for (std::uint64_t g = 0; g < P; ++g) h[g] = static_cast<int>((g + P - phase % P) % P);
    return h;
  }
  std::lock_guard lock(mutex_);
  build_period();
  const std::uint64_t periods = phase / kRingPeriod;
  if (periods != periods_) {  // the period's move to the power `periods`, by squaring
    std::vector<int> power = identity(workers_), base = within_period_.back();
    for (std::uint64_t n = periods; n > 0; n >>= 1) {
      if (n & 1) power = then(power, base);
      base = then(base, base);
    }
    after_periods_ = std::move(power);
    periods_ = periods;
  }
  const std::vector<int>& within = within_period_[phase % kRingPeriod];
  for (std::size_t g = 0; g < h.size(); ++g) h[g] = within[static_cast<std::size_t>(after_periods_[g])];
  return h;
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

}  // namespace gyre::rotation
