// apps/mf/mf/factor_init.hpp — initial factor rows as a pure function of (seed, side, id).
#pragma once

#include <cstdint>

#include "gyre/base/random.hpp"

namespace gyre::mf {

enum class Side : std::uint64_t { kUser = 1, kItem = 2 };

// Entries uniform in [-scale, scale]. Depending only on the id (not on which worker or block
// holds the row) makes the start point the same for every P, d and backend. Biases start at 0.
inline void init_row(float* row, std::uint32_t rank, std::uint64_t seed, Side side, std::uint64_t id, float scale) {
  std::uint64_t state = seed * kGoldenGamma ^ (static_cast<std::uint64_t>(side) << 62) ^ (id * 0xD1B54A32D192ED03ull);
  for (std::uint32_t j = 0; j < rank; ++j) {
    const double unit = unit_double(splitmix64(state));  // [0, 1)
    row[j] = static_cast<float>((2 * unit - 1) * scale);
  }
}

}  // namespace gyre::mf
