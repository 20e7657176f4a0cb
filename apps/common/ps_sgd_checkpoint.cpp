// apps/common/ps_sgd_checkpoint.cpp — the parameter-server SGD apps' checkpoint parts and manifests, written at epoch boundaries and read back to resume.
#include "app/ps_sgd_checkpoint.hpp"

#include <nlohmann/json.hpp>

#include "gyre/base/input_error.hpp"
#include "gyre/base/json_input.hpp"
#include "gyre/checkpoint/part_bytes.hpp"

namespace gyre::app::ps_sgd {
namespace {

constexpr std::uint32_t kPartVersion = 1;

// A part: version, worker, clock, the draws (rows, delays), then the model (empty but on worker 0).
std::vector<std::byte> encode_part(int worker, std::int64_t clock, WorkerDraws draws, std::span<const double> model) {
  checkpoint::StateWriter out;
  out.put(kPartVersion);
  out.put(static_cast<std::uint32_t>(worker));
  out.put(clock);
  out.put(draws.rows);
  out.put(draws.delays);
  out.put_all(model);
  return std::move(out.bytes());
}

}  // namespace

EpochCheckpointer::EpochCheckpointer(Checkpoints target, int workers, std::int64_t clocks_per_epoch, std::int64_t lag,
                                     std::int64_t start_clock, std::function<void(std::int64_t)> on_epoch)
    : target_(std::move(target)), workers_(workers), per_epoch_(clocks_per_epoch), lag_(lag), start_(start_clock),
      on_epoch_(std::move(on_epoch)) {}

void EpochCheckpointer::at_step(int worker, std::int64_t clock, std::span<const double> model, WorkerDraws draws) const {
  // This run's own epoch boundaries only: the one it resumed from is on disk already.
  if (clock > start_ && clock % per_epoch_ == 0 && due(clock / per_epoch_)) {
    target_.store->write_part(static_cast<std::uint64_t>(clock / per_epoch_), worker,
                              encode_part(worker, clock, draws, worker == 0 ? model : std::span<const double>{}));
  }
  const std::int64_t cut = clock - lag_;
  if (worker != 0 || cut <= start_ || cut % per_epoch_ != 0) return;
  const std::int64_t epoch = cut / per_epoch_;
  if (due(epoch)) {
    checkpoint::Manifest manifest;
    manifest.epoch = static_cast<std::uint64_t>(epoch);
    manifest.ranks = workers_;
    manifest.settings = target_.settings;
    manifest.state = nlohmann::json{{"clock", cut}, {"clocks_per_epoch", per_epoch_}}.dump();
    target_.store->commit(manifest);
  }
  if (on_epoch_) on_epoch_(epoch);
}

Resumed read_checkpoint(const checkpoint::Found& found, int workers) {
  Resumed out;
  out.epoch = static_cast<std::int64_t>(found.manifest.epoch);
  const auto manifest_file = found.directory / "manifest";
  const std::string expected = "the parameter server's state (clock)";
  try {
    out.clock = parse_json(found.manifest.state, manifest_file, expected).at("clock").get<std::int64_t>();
  } catch (const nlohmann::json::exception& e) {
    throw InputError(manifest_file, 0, expected, e.what());
  }
  if (found.manifest.ranks != workers)
    throw InputError(found.directory / "manifest", 0, "a checkpoint of " + std::to_string(workers) + " workers");
  for (int w = 0; w < workers; ++w) {
    const auto part = checkpoint::open_part(found, w);
    checkpoint::StateReader in = part.reader();
    if (in.get<std::uint32_t>() != kPartVersion) in.fail("a parameter-server checkpoint part of version 1");
    const auto worker = in.get<std::uint32_t>();
    const auto clock = in.get<std::int64_t>();
    if (worker != static_cast<std::uint32_t>(w) || clock != out.clock)
      in.fail("worker " + std::to_string(w) + "'s part at clock " + std::to_string(out.clock));
    WorkerDraws draws;
    draws.rows = in.get<std::uint64_t>();
    draws.delays = in.get<std::uint64_t>();
    out.draws.push_back(draws);
    auto model = in.get_all<double>();
    // Worker 0's part holds the model, the others' none.
    if ((w == 0) == model.empty()) in.fail(w == 0 ? "the model" : "a worker's state, no model");
    if (w == 0) out.parameters = std::move(model);
    in.finish();
  }
  return out;
}

}  // namespace gyre::app::ps_sgd
