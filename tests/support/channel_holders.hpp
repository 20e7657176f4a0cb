// tests/support/channel_holders.hpp — how many of gyre's registered message channels hold a message type (each must be in one).
#pragma once

#include <cstdint>

#include "gyre/wire/channels.hpp"

namespace gyre::test {

// How many registered channels hold `type`.
constexpr int channel_holders(std::uint16_t type) {
  int n = 0;
  for (const wire::channels::Channel& c : wire::channels::kRegistry) n += c.contains(type) ? 1 : 0;
  return n;
}

}  // namespace gyre::test
