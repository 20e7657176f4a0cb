// apps/common/ps_sgd_checkpoint.cpp — the parameter-server SGD apps' checkpoint parts and manifests, written at epoch boundaries and read back to resume.
#include "app/ps_sgd_checkpoint.hpp"

#include <nlohmann/json.hpp>

#include <bit>
#include <cstring>

#include "gyre/base/input_error.hpp"

namespace gyre::app::ps_sgd {
namespace {

static_assert(std::endian::native == std::endian::little, "checkpoint parts hold little-endian numbers");

constexpr std::uint32_t kPartVersion = 1;

// A part: version, worker, clock, the draws (rows, delays), the model's width (0 but on worker
// 0), then that many doubles.
struct PartHeader {
  std::uint32_t version = kPartVersion;
  std::uint32_t worker = 0;
  std::int64_t clock = 0;
  std::uint64_t rows = 0;
  std::uint64_t delays = 0;
  std::uint64_t width = 0;
};
static_assert(sizeof(PartHeader) == 40);

std::vector<std::byte> encode_part(const PartHeader& h, std::span<const double> model) {
  std::vector<std::byte> out(sizeof h + model.size_bytes());
  std::memcpy(out.data(), &h, sizeof h);
  if (!model.empty()) std::memcpy(out.data() + sizeof h, model.data(), model.size_bytes());
  return out;
}

}  // namespace

EpochCheckpointer::EpochCheckpointer(Checkpoints target, int workers, std::int64_t clocks_per_epoch, std::int64_t lag,
                                     std::int64_t start_clock, std::function<void(std::int64_t)> on_epoch)
    : target_(std::move(target)), workers_(workers), per_epoch_(clocks_per_epoch), lag_(lag), start_(start_clock),
      on_epoch_(std::move(on_epoch)) {}

void EpochCheckpointer::at_step(int worker, std::int64_t clock, std::span<const double> model, WorkerDraws draws) const {
  // This run's own epoch boundaries only: the one it resumed from is on disk already.
  if (clock > start_ && clock % per_epoch_ == 0 && due(clock / per_epoch_)) {
    const PartHeader h{kPartVersion, static_cast<std::uint32_t>(worker), clock, draws.rows, draws.delays,
                       worker == 0 ? model.size() : 0};
    target_.store->write_part(static_cast<std::uint64_t>(clock / per_epoch_), worker,
                              encode_part(h, worker == 0 ? model : std::span<const double>{}));
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
  try {
    out.clock = nlohmann::json::parse(found.manifest.state).at("clock").get<std::int64_t>();
  } catch (const nlohmann::json::exception& e) {
    throw InputError(found.directory / "manifest", 0, "the parameter server's state (clock)", e.what());
  }
  if (found.manifest.ranks != workers)
    throw InputError(found.directory / "manifest", 0, "a checkpoint of " + std::to_string(workers) + " workers");
  for (int w = 0; w < workers; ++w) {
    const auto file = found.directory / ("rank-" + std::to_string(w) + ".part");
    const std::vector<std::byte> bytes = checkpoint::read_sealed(file);
    PartHeader h;
    if (bytes.size() < sizeof h) throw InputError(file, 0, "a part of at least " + std::to_string(sizeof h) + " bytes");
    std::memcpy(&h, bytes.data(), sizeof h);
    if (h.version != kPartVersion) throw InputError(file, 0, "a parameter-server checkpoint part of version 1");
    if (h.worker != static_cast<std::uint32_t>(w) || h.clock != out.clock)
      throw InputError(file, 0, "worker " + std::to_string(w) + "'s part at clock " + std::to_string(out.clock));
    // Worker 0's part holds the model, the others' none.
    const std::size_t doubles = (bytes.size() - sizeof h) / sizeof(double);
    if ((w == 0) != (h.width > 0) || h.width != doubles || bytes.size() != sizeof h + doubles * sizeof(double))
      throw InputError(file, 0, w == 0 ? "the model, as many parameters as the part says" : "a worker's state, no model");
    out.draws.push_back({h.rows, h.delays});
    if (w == 0) {
      out.parameters.resize(doubles);
      std::memcpy(out.parameters.data(), bytes.data() + sizeof h, doubles * sizeof(double));
    }
  }
  return out;
}

}  // namespace gyre::app::ps_sgd
