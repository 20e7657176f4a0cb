// apps/mf/mf_kernel.cpp — SGD over a visiting item block on T threads, with sub-block ownership.
#include "mf/mf_kernel.hpp"

#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/parallel_for.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <string>

#include "mf/warm_start.hpp"

namespace gyre::mf {

RowLayout RowLayout::of(const MfConfig& c) {
  const std::size_t width = model::padded_width(c.rank);
  const bool tail = c.biases.value() || c.update == UpdateRule::kAdaGrad || c.update == UpdateRule::kCcd;
  return {width, width + (tail ? model::kRowAlign : 0)};
}

MfKernel::MfKernel(const MfConfig& config, data::RatingsSet train, data::RatingsSet test,
                   const ItemBlocks& blocks, float mean, float scale, std::uint32_t groups)
    : config_(config),
      layout_(RowLayout::of(config)),
      mean_(config.biases.value() ? mean : 0.0f),
      scale_(scale),
      users_(LocalUsers::of(train, test)),
      held_out_(take_held_out(train.ratings, config), users_, blocks, min_groups(blocks), config.threads),
      train_(std::move(train.ratings), users_, blocks, groups, config.threads),
      test_(std::move(test.ratings), users_, blocks, min_groups(blocks), config.threads),
      user_factors_(users_.global_ids.size() * layout_.stride * sizeof(float)),
      locks_(groups),
      epoch_(static_cast<std::uint32_t>(config.first_epoch)),
      rate_(initial_rate_state(config)),
      train_phases_(static_cast<std::uint64_t>(config.first_epoch) * config.train_phases_per_epoch()) {
  // Only the layouts above map global user ids to rows: a table over the whole id space (9 MB
  // at 2.4M users) that training does not need.
  std::vector<std::uint32_t>().swap(users_.local_of);
  if (config.update == UpdateRule::kCcd)
    ccd_.emplace(config_, layout_.width, layout_.stride, users_.global_ids.size(), train_.size());
  for (std::size_t u = 0; u < users_.global_ids.size(); ++u)
    start_row(config_, Side::kUser, users_.global_ids[u], user_data() + u * layout_.stride, layout_.width);
}

std::vector<data::Rating> MfKernel::take_held_out(std::vector<data::Rating>& train, const MfConfig& c) {
  std::vector<data::Rating> held_out;
  if (!(c.held_out > 0)) return held_out;
  // In place and in order: the training ratings keep their order, and no second copy is made.
  std::size_t kept = 0;
  for (const data::Rating& r : train) {
    if (is_held_out(c, r.user, r.item))
      held_out.push_back(r);
    else
      train[kept++] = r;
  }
  train.resize(kept);
  return held_out;
}

SgdStep MfKernel::step() const {
  const float lr = epoch_rate(config_, epoch_, rate_.scale);
  SgdStep s{lr, config_.lambda, config_.lambda_bias, mean_, layout_.width, layout_.stride, config_.biases.value()};
  if (config_.update == UpdateRule::kAdaGrad) {
    // LIBMF's AdaGrad on ratings divided by s, written for the unscaled ratings: factors scale
    // by √s, so their gradients by s^1.5 and their steps by 1/s; biases scale by s.
    s.adagrad = true;
    s.learning_rate = lr / scale_;
    s.bias_rate = lr;
    // A first epoch on fewer columns averages its squares over those, any other over the rank.
    s.updated_width = epoch_ == 0 ? first_epoch_width(config_, layout_.width) : layout_.width;
    const float averaged_over =
        static_cast<float>(s.updated_width < layout_.width ? s.updated_width : static_cast<std::size_t>(config_.rank));
    s.factor_sum_scale = 1.0f / (averaged_over * scale_ * scale_ * scale_);
    s.bias_sum_scale = 1.0f / (scale_ * scale_);
  }
  return s;
}

void MfKernel::train(model::Block& block, const rotation::Visit& visit) {
  if (ccd_) {
    train_ccd(block, visit);
    return;
  }
  const SgdStep s = step();
  const std::uint32_t G = train_.groups();
  std::vector<double> loss(static_cast<std::size_t>(G) * G, 0.0);
  const std::uint32_t passes = passes_for(train_.block_size(block.id()), G);
  if (config_.local == LocalSchedule::kDeterministic)
    for (std::uint32_t pass = 0; pass < passes; ++pass) train_deterministic(block, s, Slice{pass, passes}, loss);
  else
    train_dynamic(block, s, passes, loss);
  // Summed in cell order, not completion order, so the loss is reproducible too.
  sums_.train_loss += std::accumulate(loss.begin(), loss.end(), 0.0);
  sums_.train_count += static_cast<double>(train_.block_size(block.id()));
  sums_.held_out_loss += block_loss(held_out_, block);
  sums_.held_out_count += static_cast<double>(held_out_.block_size(block.id()));
}

void MfKernel::train_ccd(model::Block& block, const rotation::Visit& visit) {
  const CcdPhase p = ccd_phase(config_, train_phases_);
  const double loss = ccd_->visit(p, train_, block, user_data(), locks_, visit.step == 0,
                                  visit.step + 1 == static_cast<std::uint32_t>(config_.workers));
  // An epoch reports its last phase: each residual with every update of the epoch in it but
  // the last column's users' entries.
  if (!p.last) return;
  sums_.train_loss += loss;
  sums_.train_count += static_cast<double>(train_.block_size(block.id()));
  sums_.held_out_loss += block_loss(held_out_, block);
  sums_.held_out_count += static_cast<double>(held_out_.block_size(block.id()));
}

std::uint32_t MfKernel::passes_for(std::uint64_t block_ratings, std::uint32_t groups) const {
  if (config_.passes > 0) return config_.passes;
  const std::uint64_t per_cell = block_ratings / (std::uint64_t{groups} * groups);
  return static_cast<std::uint32_t>(std::clamp<std::uint64_t>(per_cell / kRatingsPerSlice, 1, 256));
}

Cell MfKernel::slice_of(const Cell& cell, const Slice& slice) {
  const std::size_t n = cell.ratings.size();
  const std::size_t lo = n * slice.index / slice.count, hi = n * (slice.index + 1) / slice.count;
  return {cell.ratings.subspan(lo, hi - lo), cell.first_row};
}

void MfKernel::train_deterministic(model::Block& block, const SgdStep& s, const Slice& slice,
                                   std::vector<double>& loss) {
  const std::uint32_t G = train_.groups();
  rotation::diagonal_sweep(G, locks_, [&](std::uint32_t g, std::uint32_t sub) {
    loss[g * G + sub] += sgd_cell(slice_of(train_.cell(block.id(), g, sub), slice), user_data(), block.data(), s);
  });
}

void MfKernel::train_dynamic(model::Block& block, const SgdStep& s, std::uint32_t passes, std::vector<double>& loss) {
  const std::uint32_t G = train_.groups();
  // A stay on one item sub-range ends after about kUpdatesPerRowInStay updates of each of its rows.
  const double slice_ratings = static_cast<double>(train_.block_size(block.id())) / (static_cast<double>(G) * G * passes);
  const double sub_rows = static_cast<double>(block.rows()) / G;
  const auto max_stay = static_cast<std::uint32_t>(
      std::clamp(kUpdatesPerRowInStay * sub_rows / std::max(slice_ratings, 1.0), 1.0, static_cast<double>(G) * G));
  rotation::dynamic_sweep(G, passes, config_.threads, max_stay, [&](std::uint32_t g, std::uint32_t sub, std::uint32_t slice) {
    // A cell's slices run one after another, never at once: its loss needs no lock.
    loss[g * G + sub] += sgd_cell(slice_of(train_.cell(block.id(), g, sub), Slice{slice, passes}), user_data(), block.data(), s);
  });
}

void MfKernel::evaluate(const model::Block& block, const rotation::Visit&) {
  sums_.test_loss += block_loss(test_, block);
  sums_.test_count += static_cast<double>(test_.block_size(block.id()));
}

double MfKernel::block_loss(const WorkerRatings& set, const model::Block& block) {
  // Fixed chunks of each cell summed in order: the same bits for any thread count.
  constexpr std::size_t kChunk = 16384;
  const std::uint32_t G = set.groups();
  std::vector<Cell> chunks;
  for (std::uint32_t g = 0; g < G; ++g)
    for (std::uint32_t sub = 0; sub < G; ++sub) {
      const Cell cell = set.cell(block.id(), g, sub);
      for (std::size_t at = 0; at < cell.ratings.size(); at += kChunk)
        chunks.push_back({cell.ratings.subspan(at, std::min(kChunk, cell.ratings.size() - at)), cell.first_row});
    }
  std::vector<double> partial(chunks.size(), 0.0);
  const SgdStep s = step();
  oneapi::tbb::parallel_for(std::size_t{0}, chunks.size(), [&](std::size_t c) {
    partial[c] = squared_error(chunks[c], user_data(), block.data(), s);
  });
  return std::accumulate(partial.begin(), partial.end(), 0.0);
}

std::size_t first_epoch_width(const MfConfig& c, std::size_t width) {
  const std::uint64_t columns = c.first_epoch_columns;
  if (columns == 0) return width;
  return static_cast<std::size_t>(std::min<std::uint64_t>(width, (columns + 7) / 8 * 8));
}

std::size_t model_row_floats(const MfConfig& c) {
  // CCD++'s tail holds only a phase's sums, nothing a model keeps.
  return static_cast<std::size_t>(c.rank) + (c.biases.value() || c.update == UpdateRule::kAdaGrad ? kModelTailFloats : 0);
}

UserRows MfKernel::user_rows() const {
  const auto* first = reinterpret_cast<const float*>(user_factors_.data());
  const std::size_t rank = static_cast<std::size_t>(config_.rank), floats = model_row_floats(config_);
  const std::size_t n = users_.global_ids.size();
  UserRows out{users_.global_ids, std::vector<float>(n * floats)};
  for (std::size_t r = 0; r < n; ++r) {
    const float* row = first + r * layout_.stride;
    float* to = out.rows.data() + r * floats;
    std::copy_n(row, rank, to);
    std::copy_n(row + layout_.width, floats - rank, to + rank);
  }
  return out;
}

void MfKernel::start_phase(std::uint64_t, rotation::PhaseKind kind, std::span<const std::byte> payload) {
  if (!payload.empty()) rate_.scale = decode_rate_scale(payload);  // a driver that sends none keeps the scale
  if (ccd_ && kind == rotation::PhaseKind::kTrain) {
    ccd_->start_phase(ccd_phase(config_, train_phases_), user_data());
  }
}

void MfKernel::end_phase(std::uint64_t, rotation::PhaseKind kind, std::span<const model::Block* const>) {
  // Before a checkpoint takes the user rows: they are whole only once the column is set.
  if (ccd_ && kind == rotation::PhaseKind::kTrain) {
    const CcdPhase p = ccd_phase(config_, train_phases_);
    if (!p.items) ccd_->finish_users(p, user_data());
  }
}

void MfKernel::steer_rate(const MfReport& own) {
  if (own.held_out_count > 0)
    rate_ = next_rate_state(config_, rate_, std::sqrt(own.held_out_loss / own.held_out_count),
                            own.train_count > 0 ? std::sqrt(own.train_loss / own.train_count) : 0.0);
}

rotation::PhaseSums MfKernel::take_phase_sums(rotation::PhaseKind kind) {
  if (kind == rotation::PhaseKind::kTrain && ++train_phases_ % config_.train_phases_per_epoch() == 0) ++epoch_;
  const auto out = rotation::to_sums(sums_);
  sums_ = {};
  return out;
}

}  // namespace gyre::mf
