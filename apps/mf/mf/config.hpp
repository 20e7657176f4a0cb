// apps/mf/mf/config.hpp — every knob of SGD matrix factorisation, with the defaults gyre-mf uses.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "app/computation_model.hpp"
#include "gyre/rotation/rotation_schedule.hpp"

namespace gyre::mf {

enum class LocalSchedule {
  // Diagonal rounds over the G×G grid of a block: cells of one round share no user group and
  // no item sub-block, so they run in parallel without locks and the result does not depend
  // on thread timing. Bitwise reproducible for fixed seed, P, d and T.
  kDeterministic,
  // FPSGD (the default; rotation::dynamic_sweep): a free thread takes the next slice of any
  // cell whose user group and item sub-block are both free, the least-done first, staying on
  // its item sub-block when it can. No barrier inside a visit, so a shared or slow core holds
  // up only its own cell (tools/bench/mf-libmf.md), but with T > 1 the order of updates, and
  // so the last bits of the result, depend on timing.
  kDynamic,
};

// How a rating's error moves the two rows it touches.
enum class UpdateRule {
  // AdaGrad per row (as LIBMF): each row keeps the running mean square of its gradients and
  // steps by learning_rate·√s / √(that sum), s the training ratings' standard deviation, so
  // that a frequently updated row slows down and a rare one keeps learning. The rate is
  // scale-free: the same value suits ratings in [1, 5] and in [-1, 1].
  kAdaGrad,
  // Plain SGD with the rate of epoch e = learning_rate · lr_decay^e for every row.
  kSgd,
  // CCD++ (Yu, Hsieh, Si, Dhillon 2012; LIBPMF's and STRADS's MF): an epoch fits one factor
  // column at a time, the items' then the users' entries of it, each exactly (a rank-one least
  // squares with λ per rating), `ccd_inner` times per column. No learning rate. Each half of a
  // column is a rotation phase (mf/ccd_update.hpp): 2·rank·ccd_inner phases an epoch.
  kCcd,
};
UpdateRule parse_update_rule(const std::string& text);  // "adagrad", "sgd", "ccd"; throws std::invalid_argument
const char* name_of(UpdateRule rule);

// Harp's four computation models, each a way to share the item factors between workers:
//   kLocking    A: one shared copy; a worker takes any block it has not done this epoch from
//                  the lock service, exclusively, in whatever order frees up
//   kRotation   B: blocks travel the ring, d in flight per worker (the default)
//   kAllreduce  C: every worker has a replica; after each epoch the workers' mean change is
//                  applied to every replica, summed by one of the collectives below
//   kNoSync     D: every worker has a replica and waits only to stay within `max_lead` epochs
//                  of the slowest; a thread averages it with the peers' every `average_ms`
using app::ComputationModel;
using app::name_of;
using app::parse_computation_model;
// How the allreduce model sums the workers' changes (the same sums, different traffic).
enum class ChangeCollective {
  kRing,      // dense ring allreduce of every block's change
  kRegroup,   // regroup (block b summed on worker b mod P), then allgather: Harp's regroup+allgather
  kPushPull,  // push the changes to the blocks' owners, pull the sums back: Harp's push & pull
};
ChangeCollective parse_change_collective(const std::string& text);  // "ring", "regroup", "pushpull"



// Plain SGD's rate, where AdaGrad's does not suit it.
inline constexpr float kSgdRate = 0.05f;

// Beyond these a run would not end in a lifetime: a typo, refused up front.
inline constexpr int kMaxEpochs = 1'000'000;
inline constexpr std::uint32_t kMaxPasses = 1024;
inline constexpr std::uint32_t kMaxCcdInner = 100;

struct MfModel;

// The rotation's training phases an epoch takes: one, or CCD++'s two per column and inner pass.
inline std::uint64_t train_phases_per_epoch(UpdateRule update, std::uint32_t rank, std::uint32_t ccd_inner) {
  return update == UpdateRule::kCcd ? std::uint64_t{2} * rank * ccd_inner : 1;
}

struct MfConfig {
  std::uint32_t rank = 10;
  float lambda = 0.03f;        // L2 regularisation of factor rows (in the ratings' units)
  float lambda_bias = 0.01f;   // L2 regularisation of biases
  UpdateRule update = UpdateRule::kAdaGrad;
  // The rate of epoch e (0-based) is learning_rate · lr_decay^e · scale, a fresh model's first
  // epoch at lr_warmup of that, where the held-out ratings steer the scale (mf/rate_schedule.hpp):
  // cut by lr_cut after an epoch that made them worse, grown by lr_grow after one that improved
  // them steadily (as much as the training ratings). Why steer: planted low-noise ratings want
  // 3-8 times the rate that noisy over-parameterised ones (Netflix-shaped, k = 40) want, and
  // real ratings that overfit (InstEval) want it cut; no fixed schedule served all three
  // (tools/bench/mf-defaults.md has the figures).
  float learning_rate = 0.1f;  // AdaGrad's scale-free rate; SGD's rate of the first epoch (kSgdRate suits it)
  float lr_decay = 0.95f;
  float lr_warmup = 1;         // (0, 1]: the warm-up keeps a fast rate from diverging while AdaGrad's sums are empty
  float lr_cut = 0.3f;         // (0, 1]: 1 never cuts
  float lr_grow = 1.5f;        // [1, kMaxRateScale]: 1 never grows
  // The share of the training ratings held out from the updates to steer the rate (and
  // reported as the held-out RMSE of each epoch), but at most held_out_max ratings: what is
  // held out is not trained on (2% cost 0.4% of test RMSE on 20M ratings, 10,000 of them
  // nothing measurable). 0: none held out, and the rate follows the fixed schedule. Under kCcd
  // there is no rate: held-out ratings are only reported (gyre-mf sets 0 unless asked).
  float held_out = 0.02f;      // [0, 0.5]; plan_job() lowers it to held_out_max / ratings
  std::uint64_t held_out_max = 10000;  // 0: no cap
  // Global mean + user bias + item bias. Unset (the default): plan_job decides from the
  // training ratings (settle_biases): on when the items' mean ratings differ by more than
  // noise, as real ratings' do (InstEval: the factors alone end 4.9% above LIBMF's best test
  // RMSE, with the biases 0.3% below it); off for ratings without such offsets, where biases
  // only fit noise (a planted 200k-rating problem ends at 0.47 with them, 0.14 without:
  // tools/bench/mf-libmf.md). Off under kCcd, which fits factors only and refuses true.
  std::optional<bool> biases;
  // AdaGrad's first epoch updates only the first this many factor columns (rounded up to a
  // multiple of 8; the others still predict), its sums then the mean square over those: after
  // LIBMF's first iteration, which updates only its first 8. Off by default. Without biases, on
  // 20M Netflix-shaped ratings at k = 100, 8 columns took the fixed-rate test RMSE after 10
  // epochs from 0.3455 to 0.3414 (LIBMF: 0.3410). On tools/bench/mf's planted rank-10 ratings
  // at k = 40, they took it from 0.5883 to 0.6320. gyre keeps one sum a row, and LIBMF keeps a
  // second, fresh one for the other columns, so the first epoch's large sums slow every column
  // after it (tools/bench/mf-libmf.md, 2026-12-07). 0: every column.
  std::uint32_t first_epoch_columns = 0;
  // Factor entries start uniform in [-s, s], a function of (seed, id) only. Unset: s = √(σ/k),
  // σ the training ratings' standard deviation, so that a start row's products have the
  // ratings' spread whatever the rank (plan_job fills it in).
  std::optional<float> init_scale;
  std::uint64_t seed = 1;
  std::uint32_t ccd_inner = 1;  // CCD++: passes over each column (LIBPMF's -T)

  int epochs = 20;
  int workers = 1;             // rotation ring size (threads of this process in the embedded default)
  int threads = 1;             // threads per worker
  int depth = 1;               // pipeline depth d: item blocks in flight per worker
  int blocks_per_worker = 0;   // m: B = workers · m item blocks (0: m = d)

  int group_size() const { return blocks_per_worker > 0 ? blocks_per_worker : depth; }
  // The rotation's training phases an epoch takes: one, or CCD++'s two per column and inner pass.
  std::uint64_t train_phases_per_epoch() const;
  rotation::RingOrder ring = rotation::RingOrder::kFixed;
  LocalSchedule local = LocalSchedule::kDynamic;
  std::uint32_t passes = 0;    // passes over the grid per block visit (0: ~2k ratings per cell slice)
  int eval_every = 1;          // evaluate the test set every N epochs (and after the last)
  ComputationModel model = ComputationModel::kRotation;
  ChangeCollective collective = ChangeCollective::kRing;  // C
  double average_ms = 20;      // D: interval of the averaging thread
  int max_lead = 1;            // D: epochs a replica may run ahead of the slowest (SSP over epochs); -1: unbounded

  // Warm start (--init-model): the saved model's rows by dense id, loaded instead of the
  // seeded start (mf/warm_start.hpp), the epochs it had done, so that the learning-rate
  // schedule and the epoch numbers go on where it stopped, and the rotation phases it had run,
  // so that the ring goes on from the same block positions and orders. Null and 0: a fresh start.
  std::shared_ptr<const MfModel> start;
  int first_epoch = 0;
  std::uint64_t first_phase = 0;
};

inline std::uint64_t MfConfig::train_phases_per_epoch() const { return mf::train_phases_per_epoch(update, rank, ccd_inner); }

}  // namespace gyre::mf
