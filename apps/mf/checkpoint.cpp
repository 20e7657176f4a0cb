// apps/mf/checkpoint.cpp — MF's checkpoint parts (user rows, kept item rows) and rebuilding the model a resume starts from.
#include "mf/checkpoint.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <optional>

#include "app/model_header.hpp"
#include "gyre/base/json_input.hpp"
#include "gyre/checkpoint/part_bytes.hpp"
#include "mf/warm_start.hpp"

namespace gyre::mf {
namespace {

using checkpoint::StateReader;
using checkpoint::StateWriter;

constexpr std::uint32_t kPartVersion = 1;

// Where row `row` (stride floats) goes in the dense model: factors, bias, AdaGrad's sums. A
// model of some users only (user_ids set) takes its own users' rows and passes over the others.
void place_row(MfModel& m, Side side, std::uint32_t id, const float* row, std::size_t width) {
  const bool user = side == Side::kUser;
  if (user && !m.user_ids.empty()) {
    const auto at = std::lower_bound(m.user_ids.begin(), m.user_ids.end(), id);
    if (at == m.user_ids.end() || *at != id) return;
    id = static_cast<std::uint32_t>(at - m.user_ids.begin());
  }
  std::copy_n(row, m.rank, (user ? m.user_factors : m.item_factors).begin() + std::ptrdiff_t{id} * m.rank);
  if (m.biases) (user ? m.user_bias : m.item_bias)[id] = row[width + kBiasAt];
  auto& sums = user ? m.user_sums : m.item_sums;
  if (!sums.empty())
    std::copy_n(row + width + kFactorSumAt, MfModel::kSumsPerRow, sums.begin() + std::ptrdiff_t{id} * MfModel::kSumsPerRow);
}

}  // namespace

void take_checkpoints(const MfPlan& plan, const checkpoint::CheckpointTarget& target, rotation::PhasePolicy& policy,
                      rotation::RotationOptions& options, std::function<const MfKernel&(int worker)> kernel_of) {
  if (!target.store) return;
  auto c = std::make_shared<checkpoint::EpochCheckpoints>(target);
  c->first_epoch = plan.config.first_epoch;
  c->last_epoch = plan.config.first_epoch + plan.config.epochs;
  c->workers = plan.config.workers;
  c->first_phase = plan.config.first_phase;
  c->phases_per_epoch = static_cast<int>(plan.config.train_phases_per_epoch());
  checkpoint::take_checkpoints(
      c,
      [&plan, kernel_of = std::move(kernel_of)](int worker, std::span<const model::Block* const> held) {
        return encode_part(plan, kernel_of(worker), held);
      },
      [&plan](std::uint64_t next) { return control_state(plan, next); }, policy, options);
}

std::vector<std::byte> encode_part(const MfPlan& plan, const MfKernel& kernel, std::span<const model::Block* const> held) {
  const auto stride = static_cast<std::uint32_t>(plan.layout.stride);
  std::vector<std::uint32_t> items;
  std::vector<float> item_rows;
  for (const model::Block* b : held) {
    items.insert(items.end(), plan.blocks.rows[b->id()].begin(), plan.blocks.rows[b->id()].end());
    for (std::size_t r = 0; r < b->rows(); ++r) item_rows.insert(item_rows.end(), b->row(r), b->row(r) + stride);
  }
  StateWriter out;
  out.put(kPartVersion);
  out.put(stride);
  out.put_all(kernel.users().global_ids);
  out.put_all(kernel.user_rows_view());
  out.put_all(items);
  out.put_all(item_rows);
  return std::move(out.bytes());
}

std::string control_state(const MfPlan& plan, std::uint64_t next_phase) {
  const RateState& rate = *plan.rate;  // as the policy left it after the epoch checkpointed
  return nlohmann::json{{"next_phase", next_phase},
                        {"biases", plan.config.biases.value()},
                        {"mean", plan.mean},
                        {"scale", plan.scale},
                        {"rate_scale", rate.scale},
                        {"held_out_rmse", app::number_or_null(rate.held_out_rmse)},
                        {"train_rmse", app::number_or_null(rate.train_rmse)}}
      .dump();
}

Resumed read_checkpoint(const checkpoint::Found& found, const MfConfig& config, std::uint32_t users, std::uint32_t items,
                        const std::function<bool(std::uint32_t)>& keep_user) {
  const auto manifest_file = found.directory / "manifest";
  float mean = 0, scale = 1;
  std::optional<bool> biases;
  Resumed out;
  out.epoch = static_cast<int>(found.manifest.epoch);
  RateState rate;
  const std::string expected = "gyre-mf's state (next_phase, mean, scale, rate_scale, held_out_rmse)";
  try {
    const auto state = parse_json(found.manifest.state, manifest_file, expected);
    out.phase = state.at("next_phase").get<std::uint64_t>();
    mean = state.at("mean").get<float>();
    if (state.contains("biases")) biases = state.at("biases").get<bool>();
    scale = state.at("scale").get<float>();
    rate.scale = state.at("rate_scale").get<float>();
    if (const auto& rmse = state.at("held_out_rmse"); !rmse.is_null()) rate.held_out_rmse = rmse.get<double>();
    // Checkpoints from before the rate could grow have no train_rmse: the first epoch resumed grows nothing.
    if (state.contains("train_rmse") && !state.at("train_rmse").is_null()) rate.train_rmse = state.at("train_rmse").get<double>();
  } catch (const nlohmann::json::exception& e) {
    throw InputError(manifest_file, 0, expected, e.what());
  }
  if (!(rate.scale > 0 && rate.scale <= kMaxRateScale))
    throw InputError(manifest_file, 0, "\"rate_scale\" in (0, 8]", std::to_string(rate.scale));
  // As in model.json: each epoch is its training phases and at most one evaluation.
  check_phase_count(manifest_file, "next_phase", out.phase, found.manifest.epoch, config.train_phases_per_epoch());
  // The model goes on with the biases it was checkpointed with, whatever this run's data would
  // decide. Checkpoints written before they were recorded: a model without biases has a mean of
  // exactly 0, one with them the ratings' mean.
  MfConfig run = config;
  run.biases = biases.value_or(mean != 0.0f);
  const RowLayout layout = RowLayout::of(run);
  auto m = std::make_shared<MfModel>();
  m->rank = config.rank;
  m->biases = run.biases.value();
  m->mean = mean;
  m->users = users;
  m->items = items;
  if (keep_user)
    for (std::uint32_t u = 0; u < users; ++u)
      if (keep_user(u)) m->user_ids.push_back(u);
  const std::uint32_t held = keep_user ? static_cast<std::uint32_t>(m->user_ids.size()) : users;
  m->user_factors.resize(std::size_t{held} * config.rank);
  m->item_factors.resize(std::size_t{items} * config.rank);
  if (m->biases) {
    m->user_bias.resize(held);
    m->item_bias.resize(items);
  }
  if (config.update == UpdateRule::kAdaGrad) {
    m->user_sums.resize(std::size_t{held} * MfModel::kSumsPerRow);
    m->item_sums.resize(std::size_t{items} * MfModel::kSumsPerRow);
  }
  // Every row as a fresh run starts it; the checkpoint's rows replace them below.
  MfConfig fresh = run;
  fresh.start.reset();
  if (!fresh.init_scale) fresh.init_scale = std::sqrt(scale / static_cast<float>(config.rank));
  std::vector<float> row(layout.stride);
  for (std::uint32_t u = 0; u < users; ++u) {
    if (keep_user && !keep_user(u)) continue;
    std::fill(row.begin(), row.end(), 0.0f);
    start_row(fresh, Side::kUser, u, row.data(), layout.width);
    place_row(*m, Side::kUser, u, row.data(), layout.width);
  }
  for (std::uint32_t i = 0; i < items; ++i) {
    std::fill(row.begin(), row.end(), 0.0f);
    start_row(fresh, Side::kItem, i, row.data(), layout.width);
    place_row(*m, Side::kItem, i, row.data(), layout.width);
  }
  for (int r = 0; r < found.manifest.ranks; ++r) {
    const auto part = checkpoint::open_part(found, r);
    StateReader in = part.reader();
    if (in.get<std::uint32_t>() != kPartVersion) in.fail("a gyre-mf checkpoint part of version 1");
    if (in.get<std::uint32_t>() != layout.stride)
      in.fail("rows of " + std::to_string(layout.stride) + " floats (this run's rank, biases and update rule)");
    // A side's ids, then their rows in the same order.
    const auto read_side = [&](Side side, std::uint32_t limit, const char* what) {
      const auto ids = in.get_all<std::uint32_t>();
      const auto rows = in.get_all<float>(ids.size() * layout.stride, std::string(what) + " rows");
      for (std::size_t i = 0; i < ids.size(); ++i) {
        if (ids[i] >= limit) in.fail(std::string(what) + " ids below " + std::to_string(limit) + " (this run's input)");
        place_row(*m, side, ids[i], rows.data() + i * layout.stride, layout.width);
      }
    };
    read_side(Side::kUser, users, "user");
    read_side(Side::kItem, items, "item");
    in.finish();
  }
  m->trained = TrainingRecord{out.epoch,     config.learning_rate, config.lr_decay, config.lambda,
                              config.lambda_bias, config.seed,     out.phase,       config.update,
                              scale,         rate,                 config.lr_cut,   config.held_out,
                              config.lr_grow, config.ccd_inner, config.held_out_max};
  out.start = std::move(m);
  return out;
}

void continue_from(MfConfig& config, const Resumed& resumed, int target_epoch) {
  config.biases = resumed.start->biases;
  config.start = resumed.start;
  config.first_epoch = resumed.epoch;
  config.first_phase = resumed.phase;
  config.epochs = std::max(0, target_epoch - resumed.epoch);
}

}  // namespace gyre::mf
