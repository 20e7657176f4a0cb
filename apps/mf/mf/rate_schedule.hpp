// apps/mf/mf/rate_schedule.hpp — the learning rate of each epoch: a warm-up epoch, then the set rate, cut whenever held-out ratings say the model got worse.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <vector>

#include "mf/config.hpp"

namespace gyre::mf {

// What the held-out ratings have decided so far. The scheduler's epoch policy moves it on after
// each training phase, sends it with each phase start to every kernel (so every process trains
// at the same rate), writes it into checkpoints and model.json, and a continued run starts from it.
struct RateState {
  float scale = 1;  // the product of the cuts so far
  double held_out_rmse = std::numeric_limits<double>::quiet_NaN();  // after the last epoch; NaN: none yet
};

// The rate of epoch `epoch` (0-based over the model's life):
//   learning_rate · lr_decay^epoch · scale, and lr_warmup times that for a fresh model's first epoch.
float epoch_rate(const MfConfig& c, std::uint32_t epoch, float scale);

// The state after an epoch whose held-out ratings gave `held_out_rmse`: the scale cut by
// lr_cut when that is above the previous epoch's.
RateState next_rate_state(const MfConfig& c, const RateState& state, double held_out_rmse);

// The state a run starts from: the saved model's (warm start, resume), else a fresh one.
RateState initial_rate_state(const MfConfig& c);

// Whether the training rating (user, item) is held out: about c.held_out of them, picked by a
// hash of the dense ids and the seed, so that the same ratings are held out for any number of
// workers, and again when a run resumes or continues.
bool is_held_out(const MfConfig& c, std::uint32_t user, std::uint32_t item);

// A phase start's payload: the scale, 4 bytes little-endian. Throws std::runtime_error on a
// payload of any other size.
std::vector<std::byte> encode_rate_scale(float scale);
float decode_rate_scale(std::span<const std::byte> payload);

}  // namespace gyre::mf
