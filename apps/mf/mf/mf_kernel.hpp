// apps/mf/mf/mf_kernel.hpp — MF's per-worker rotation kernel: user rows stay, item blocks visit.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "gyre/base/buffer.hpp"
#include "gyre/rotation/cell_grid.hpp"
#include "gyre/rotation/rotation_kernel.hpp"
#include "mf/ccd_update.hpp"
#include "mf/config.hpp"
#include "mf/item_blocks.hpp"
#include "mf/rate_schedule.hpp"
#include "mf/sgd_update.hpp"
#include "mf/worker_ratings.hpp"

namespace gyre::mf {

// What an MF worker reports for a phase: squared errors and the ratings they were taken on.
struct MfReport {
  double train_loss = 0;   // each error taken before its update
  double train_count = 0;
  double test_loss = 0;
  double test_count = 0;
  double held_out_loss = 0;  // MfConfig::held_out's ratings, each after its block's visit
  double held_out_count = 0;
};

// Row layout shared by user rows and item block rows: the factors, padded with zeros to
// `width`, then (with biases or AdaGrad) a tail of 8 floats holding the bias and AdaGrad's
// sums, so that a row's whole state travels with it in a block and the factors stay aligned.
struct RowLayout {
  std::size_t width;   // rank padded to a multiple of 8
  std::size_t stride;  // width, plus the tail's 8 when there is one
  static RowLayout of(const MfConfig& c);
};

// A worker's user rows as the model takes them: row r of `rows` is user ids[r], its `rank`
// factors then, with a tail, the tail's bias and AdaGrad's two sums (model_row_floats of them),
// without the padding that keeps a training row aligned: what is gathered at rank 0 and
// assembled is about half a padded row at rank 10.
struct UserRows {
  std::vector<std::uint32_t> ids;
  std::vector<float> rows;
};
inline constexpr std::size_t kModelTailFloats = 3;  // kBiasAt, kFactorSumAt, kBiasSumAt
std::size_t model_row_floats(const MfConfig& c);
// The row columns AdaGrad's first epoch updates (MfConfig::first_epoch_columns), of `width`.
std::size_t first_epoch_width(const MfConfig& c, std::size_t width);

class MfKernel final : public rotation::RotationKernel {
 public:
  // Takes the worker's training and test ratings over (laid out in place: no second copy).
  MfKernel(const MfConfig& config, data::RatingsSet train, data::RatingsSet test,
           const ItemBlocks& blocks, float mean, float scale, std::uint32_t groups);

  void train(model::Block& block, const rotation::Visit& visit) override;
  void evaluate(const model::Block& block, const rotation::Visit& visit) override;
  rotation::PhaseSums take_phase_sums(rotation::PhaseKind kind) override;
  // The scale of the learning rate the scheduler decided for this phase (mf/rate_schedule.hpp).
  void start_phase(std::uint64_t phase, rotation::PhaseKind kind, std::span<const std::byte> payload) override;
  void end_phase(std::uint64_t phase, rotation::PhaseKind kind, std::span<const model::Block* const> held) override;
  // The no-sync model, whose workers never wait for the scheduler: moves the rate on from this
  // worker's own held-out ratings, `own` being its report of the epoch just trained.
  void steer_rate(const MfReport& own);

  const LocalUsers& users() const noexcept { return users_; }
  UserRows user_rows() const;
  // The user rows in place, row r for users().global_ids[r], `stride` floats each.
  std::span<const float> user_rows_view() const noexcept {
    return {reinterpret_cast<const float*>(user_factors_.data()), users_.global_ids.size() * layout_.stride};
  }
  // Frees the ratings once training is over, before the model is gathered.
  void drop_ratings() noexcept {
    held_out_.clear();
    train_.clear();
    test_.clear();
    ccd_.reset();  // a residual per rating
  }

 private:
  // A visit sweeps the grid in several passes, each over the same slice of every cell. Cells
  // are sorted by user, so slice i of the cells of user group g covers about the same users:
  // within a pass each user meets every item sub-block once. One pass per visit (whole cells)
  // would fit a user to one sub-block's items for 1/G of the visit, then the next, which
  // converges visibly slower per epoch than a random order; slices of ~2k ratings recover
  // the random order's progress per epoch while keeping the cache-friendly layout.
  struct Slice {
    std::uint32_t index;
    std::uint32_t count;
  };
  static constexpr std::uint64_t kRatingsPerSlice = 2048;
  // The dynamic sweep keeps a thread on its item sub-range (its rows in cache) for a few cells,
  // not for all of them: a stay of all G cells of a slice gave each row of a 935-row sub-range
  // (Netflix-shaped ratings, k = 100, G = 19) about 40 updates in a row and cost about a sweep
  // in four to reach a given test RMSE (biases, λ 0.02, η 0.2). Stays of about 8 or 16 updates a
  // row (3 or 7 cells there) converged as the diagonal rounds do; 16 keeps 0.85-0.9 of the
  // unbounded stays' updates a second, 8 less (tools/bench/mf-libmf.md, 2026-12-06). At k = 40
  // (G = 8, 2221-row sub-ranges) a stay still covers a slice's cells, as before.
  static constexpr double kUpdatesPerRowInStay = 16;
  std::uint32_t passes_for(std::uint64_t block_ratings, std::uint32_t groups) const;
  static Cell slice_of(const Cell& cell, const Slice& slice);

  SgdStep step() const;
  // The squared error over `ratings`' cells of `block`, summed in a fixed order.
  double block_loss(const WorkerRatings& ratings, const model::Block& block);
  // Moves the held-out ratings out of `train` (MfConfig::held_out).
  static std::vector<data::Rating> take_held_out(std::vector<data::Rating>& train, const MfConfig& c);
  void train_ccd(model::Block& block, const rotation::Visit& visit);
  void train_deterministic(model::Block& block, const SgdStep& s, const Slice& slice, std::vector<double>& loss);
  // Every slice of every cell, each claimed by whichever thread is free (LocalSchedule::kDynamic).
  void train_dynamic(model::Block& block, const SgdStep& s, std::uint32_t passes, std::vector<double>& loss);
  float* user_data() noexcept { return reinterpret_cast<float*>(user_factors_.data()); }

  MfConfig config_;
  RowLayout layout_;
  float mean_;
  float scale_;  // the training ratings' standard deviation: AdaGrad's unit
  LocalUsers users_;
  WorkerRatings held_out_;  // the fewest cells a block (min_groups)
  WorkerRatings train_;
  WorkerRatings test_;  // the fewest cells a block
  Buffer user_factors_;
  rotation::GridLocks locks_;
  std::uint32_t epoch_;  // training phases completed (warm start: counting the saved model's), for the learning-rate schedule
  RateState rate_;
  std::uint64_t train_phases_;  // over the model's life; an epoch is MfConfig::train_phases_per_epoch() of them
  std::optional<CcdSolver> ccd_;  // under UpdateRule::kCcd
  MfReport sums_{};
};

}  // namespace gyre::mf
