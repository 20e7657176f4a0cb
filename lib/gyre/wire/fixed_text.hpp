// gyre/wire/fixed_text.hpp — short strings (job ids, tokens) as fixed-size fields, compared in constant time.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <stdexcept>
#include <string>

namespace gyre::wire {

// Fixed size so that decoding never sizes anything from the peer's bytes; NUL-padded.
template <std::size_t N>
std::array<char, N> fixed_text(const std::string& s, const char* what) {
  if (s.size() >= N) throw std::invalid_argument(std::string(what) + " longer than " + std::to_string(N - 1) + " bytes");
  std::array<char, N> out{};
  std::copy(s.begin(), s.end(), out.begin());
  return out;
}

// Looks at every byte whatever the first difference, so timing does not leak a token.
template <std::size_t N>
bool equal_constant_time(const std::array<char, N>& a, const std::array<char, N>& b) {
  unsigned char diff = 0;
  for (std::size_t i = 0; i < N; ++i) diff |= static_cast<unsigned char>(a[i] ^ b[i]);
  return diff == 0;
}

}  // namespace gyre::wire
