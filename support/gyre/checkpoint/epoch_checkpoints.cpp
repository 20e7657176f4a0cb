// gyre/checkpoint/epoch_checkpoints.cpp — writing a rotation job's checkpoint parts and its manifest at epoch boundaries.
#include "gyre/checkpoint/epoch_checkpoints.hpp"

#include <optional>

namespace gyre::checkpoint {

std::function<void(int, std::uint64_t, rotation::PhaseKind, std::span<const model::Block* const>)> part_writer(
    std::shared_ptr<const EpochCheckpoints> checkpoints, SavePart save) {
  // Training phases finished per worker; each entry is touched only by its worker's thread.
  auto trained = std::make_shared<std::vector<int>>(static_cast<std::size_t>(checkpoints->workers), 0);
  return [checkpoints, save = std::move(save), trained](int worker, std::uint64_t, rotation::PhaseKind kind,
                                                        std::span<const model::Block* const> held) {
    if (kind != rotation::PhaseKind::kTrain) return;
    const auto epoch = checkpoints->due_after(++trained->at(static_cast<std::size_t>(worker)));
    if (!epoch) return;
    const std::vector<std::byte> part = save(worker, held);
    checkpoints->store->write_part(static_cast<std::uint64_t>(*epoch), worker, part);
  };
}

namespace {

class CommittingPolicy {
 public:
  CommittingPolicy(rotation::PhasePolicy inner, std::shared_ptr<const EpochCheckpoints> c, ControlState state)
      : inner_(std::move(inner)), checkpoints_(std::move(c)), state_(std::move(state)) {}

  std::optional<rotation::PhaseKind> operator()(const rotation::PhaseResult* last) {
    if (last != nullptr && last->kind == rotation::PhaseKind::kTrain) {
      if (const auto epoch = checkpoints_->due_after(++trained_)) pending_ = epoch;
    }
    const auto next = inner_(last);
    if (next == rotation::PhaseKind::kTrain && pending_) {
      const std::uint64_t next_phase = checkpoints_->first_phase + issued_;
      Manifest manifest;
      manifest.epoch = static_cast<std::uint64_t>(*pending_);
      manifest.ranks = checkpoints_->workers;
      manifest.settings = checkpoints_->settings;
      manifest.state = state_ ? state_(next_phase) : std::string("{}");
      checkpoints_->store->commit(manifest);
      pending_.reset();
    }
    if (next) ++issued_;
    return next;
  }

 private:
  rotation::PhasePolicy inner_;
  std::shared_ptr<const EpochCheckpoints> checkpoints_;
  ControlState state_;
  int trained_ = 0;
  std::uint64_t issued_ = 0;  // phases started so far in this run
  std::optional<int> pending_;  // a due epoch whose parts are written, its manifest not yet
};

}  // namespace

rotation::PhasePolicy committing(rotation::PhasePolicy inner, std::shared_ptr<const EpochCheckpoints> checkpoints,
                                  ControlState state) {
  return CommittingPolicy(std::move(inner), std::move(checkpoints), std::move(state));
}

void take_checkpoints(std::shared_ptr<const EpochCheckpoints> checkpoints, SavePart save, ControlState state,
                      rotation::PhasePolicy& policy, rotation::RotationOptions& options) {
  options.at_phase_end = part_writer(checkpoints, std::move(save));
  policy = committing(std::move(policy), std::move(checkpoints), std::move(state));
}

}  // namespace gyre::checkpoint
