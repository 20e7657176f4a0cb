// apps/mf/mf/factor_init.hpp — initial factor rows as a pure function of (seed, side, id).
#pragma once

#include <cstdint>

namespace gyre::mf {

enum class Side : std::uint64_t { kUser = 1, kItem = 2 };

// Entries uniform in [-scale, scale]. Depending only on the id (not on which worker or block
// holds the row) makes the start point the same for every P, d and backend. Biases start at 0.
inline void init_row(float* row, std::uint32_t rank, std::uint64_t seed, Side side, std::uint64_t id, float scale) {
  std::uint64_t state = seed * 0x9E3779B97F4A7C15ull ^ (static_cast<std::uint64_t>(side) << 62) ^ (id * 0xD1B54A32D192ED03ull);
  for (std::uint32_t j = 0; j < rank; ++j) {
    std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);  // splitmix64
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    const double unit = static_cast<double>(z >> 11) * 0x1.0p-53;  // [0, 1)
    row[j] = static_cast<float>((2 * unit - 1) * scale);
  }
}

}  // namespace gyre::mf
