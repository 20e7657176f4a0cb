// tests/lib/wire/user_channel_use.cpp — compiled, never run: a user's protocol on gyre::wire::channels, and the two misuses that must not compile.
//
// As it stands it is what docs/embedding.md's "Message types" section shows and must compile; meson.build
// compiles it again with one GYRE_MISUSE_* macro defined and expects the helper's own diagnostic
// (compile_check.sh), so the failure cannot come from anything else in the file.
#include <array>
#include <cstdint>

#include "gyre/wire/channels.hpp"

namespace {

namespace channels = gyre::wire::channels;

#ifdef GYRE_MISUSE_LIBRARY_RANGE
// Types 0x50–0x57 are the lock service's: a user channel there would take its messages.
constexpr auto kMine = channels::user_channel<0x0050, 0x0057>("mine");
#else
constexpr auto kMine = channels::user_channel<0x1000, 0x1007>("mine");
#endif
constexpr auto kOther = channels::user_channel<0x1008, 0x100F>("other");
static_assert(channels::disjoint(std::array{kMine, kOther}));

enum MyMessage : std::uint16_t {
  kAsk = kMine.at(0),
  kAnswer = kMine.at(1),
#ifdef GYRE_MISUSE_PAST_END
  kBeyond = kMine.at(8),  // the channel holds 8 types: 0..7
#endif
};

}  // namespace

int main() { return kAsk + 1 == kAnswer ? 0 : 1; }
