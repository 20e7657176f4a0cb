// apps/lda/lda/random.hpp — the sampler's random numbers: small, fast, and the same on every platform.
#pragma once

#include <cstdint>

namespace gyre::lda {

inline std::uint64_t mix64(std::uint64_t x) noexcept {  // splitmix64's finaliser
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

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
  std::uint64_t next() noexcept {
    state_ += 0x9E3779B97F4A7C15ull;
    std::uint64_t z = state_;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  // Uniform in [0, 1) with 53 random bits.
  double uniform() noexcept { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  // Uniform in [0, n) for n < 2^32, by multiply-shift.
  std::uint32_t below(std::uint32_t n) noexcept {
    return static_cast<std::uint32_t>(((next() >> 32) * static_cast<std::uint64_t>(n)) >> 32);
  }

 private:
  std::uint64_t state_;
};

}  // namespace gyre::lda
