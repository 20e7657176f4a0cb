// apps/lda/lda/random.hpp — the sampler's random numbers: small, fast, and the same on every platform.
#pragma once

#include <cstdint>

#include "gyre/base/random.hpp"

namespace gyre::lda {

// A stream per (seed, purpose, ids…): seeding from the ids, never from thread or timing, is what
// makes a run bitwise reproducible.
inline std::uint64_t stream_seed(std::uint64_t seed, std::uint64_t a, std::uint64_t b = 0, std::uint64_t c = 0,
                                 std::uint64_t d = 0) noexcept {
  return mix64(mix64(mix64(mix64(seed ^ mix64(a)) ^ b) ^ c) ^ d);
}

// splitmix64: one add and a finaliser per draw; ample quality for Gibbs sampling.
class Rng {
 public:
  explicit Rng(std::uint64_t seed) noexcept : state_(seed) {}
  std::uint64_t next() noexcept { return splitmix64(state_); }
  // Uniform in [0, 1) with 53 random bits.
  double uniform() noexcept { return unit_double(next()); }
  // Uniform in [0, 1) with 32 random bits, two to a draw of the generator: the sampler's
  // proposals and acceptance tests need no finer steps, and the generator is a fair share of
  // a token's cost.
  double uniform32() noexcept {
    if (halves_ == 0) {
      spare_ = next();
      halves_ = 2;
    }
    --halves_;
    const auto bits = static_cast<std::uint32_t>(spare_ >> (32 * halves_));
    return bits * 0x1p-32;
  }
  // Uniform in [0, n) for n < 2^32, by multiply-shift.
  std::uint32_t below(std::uint32_t n) noexcept {
    return static_cast<std::uint32_t>(((next() >> 32) * static_cast<std::uint64_t>(n)) >> 32);
  }

 private:
  std::uint64_t state_;
  std::uint64_t spare_ = 0;
  int halves_ = 0;
};

}  // namespace gyre::lda
