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
  float scale = 1;  // the product of the cuts and growths so far, in (0, kMaxRateScale]
  double held_out_rmse = std::numeric_limits<double>::quiet_NaN();  // after the last epoch; NaN: none yet
  double train_rmse = std::numeric_limits<double>::quiet_NaN();     // of the last epoch
};

// The rate of epoch `epoch` (0-based over the model's life):
//   learning_rate · lr_decay^epoch · scale, and lr_warmup times that for a fresh model's first epoch.
float epoch_rate(const MfConfig& c, std::uint32_t epoch, float scale);

// The most the held-out ratings may grow the rate: 8 times the schedule's (the planted problems
// of tools/bench/mf-defaults got there from the default rate; none needed more).
inline constexpr float kMaxRateScale = 8;

// The state after an epoch whose held-out ratings gave `held_out_rmse` and whose training
// ratings `train_rmse`: the scale cut by lr_cut when the held-out RMSE is above the previous
// epoch's; grown by lr_grow (up to kMaxRateScale) when it fell by at least kGrowGain of itself
// and by at least kGrowShare of what the training RMSE fell, relatively: the model still
// learns what generalises, and learns it as fast as it fits the training ratings, so the rate
// is too small, not too large. Netflix-shaped noisy ratings at k = 40 fall 15% on the held-out
// ratings against 35% on the training ones after the first epoch, and never grow; planted
// low-noise ones fall alike on both (0.86 of it) for ten epochs, and do.
inline constexpr double kGrowGain = 0.05;
inline constexpr double kGrowShare = 0.7;
RateState next_rate_state(const MfConfig& c, const RateState& state, double held_out_rmse, double train_rmse);

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
