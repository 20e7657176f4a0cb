// apps/mf/rate_schedule.cpp — the learning rate of each epoch, and the held-out ratings that steer it.
#include "mf/rate_schedule.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <stdexcept>
#include <string>

#include "gyre/base/random.hpp"
#include "mf/trainer.hpp"

namespace gyre::mf {

float epoch_rate(const MfConfig& c, std::uint32_t epoch, float scale) {
  const float rate = c.learning_rate * std::pow(c.lr_decay, static_cast<float>(epoch)) * scale;
  return epoch == 0 ? rate * c.lr_warmup : rate;
}

RateState next_rate_state(const MfConfig& c, const RateState& state, double held_out_rmse, double train_rmse) {
  RateState next{state.scale, held_out_rmse, train_rmse};
  // NaN compares false: the first epoch, or no held-out ratings, cuts nothing.
  if (held_out_rmse > state.held_out_rmse) {
    next.scale *= c.lr_cut;
  } else if (c.lr_grow > 1) {
    const double held_gain = 1 - held_out_rmse / state.held_out_rmse;
    const double train_gain = 1 - train_rmse / state.train_rmse;
    if (held_gain >= kGrowGain && held_gain >= kGrowShare * train_gain)
      next.scale = std::min(next.scale * c.lr_grow, kMaxRateScale);
  }
  return next;
}

RateState initial_rate_state(const MfConfig& c) {
  if (c.start && c.start->trained) return c.start->trained->rate;
  return {};
}

bool is_held_out(const MfConfig& c, std::uint32_t user, std::uint32_t item) {
  if (!(c.held_out > 0)) return false;
  const std::uint64_t h = splitmix64_finalise((std::uint64_t{user} << 32 | item) ^ (c.seed * kGoldenGamma));
  return unit_double(h) < static_cast<double>(c.held_out);
}

std::vector<std::byte> encode_rate_scale(float scale) {
  const auto bits = std::bit_cast<std::uint32_t>(scale);
  std::vector<std::byte> out(4);
  for (std::size_t i = 0; i < 4; ++i) out[i] = static_cast<std::byte>(bits >> (8 * i));
  return out;
}

float decode_rate_scale(std::span<const std::byte> payload) {
  if (payload.size() != 4)
    throw std::runtime_error("a gyre-mf phase start carries the learning rate's scale in 4 bytes, not " +
                             std::to_string(payload.size()));
  std::uint32_t bits = 0;
  for (std::size_t i = 0; i < 4; ++i) bits |= std::uint32_t{std::to_integer<std::uint8_t>(payload[i])} << (8 * i);
  return std::bit_cast<float>(bits);
}

}  // namespace gyre::mf
