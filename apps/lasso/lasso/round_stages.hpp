// apps/lasso/lasso/round_stages.hpp — the Lasso control plane's states: what it sends next, the interval of rounds between two checks, the snapshots.
#pragma once

#include <algorithm>
#include <cstdint>
#include <deque>
#include <vector>

#include "gyre/rounds/rounds_protocol.hpp"
#include "lasso/checkpoint.hpp"
#include "lasso/residual_shard.hpp"

namespace gyre::lasso {

// What the control plane sends next. Every exact round (a check, a refinement, a cycle) is
// sent alone, once the rounds in flight are pulled, and pulled before anything else.
enum class Stage : std::uint8_t {
  kStart,   // the first check: λ_max from the gradient at β = 0 (and what a loss places itself)
  kRounds,  // an interval of rounds of scheduled coordinates, until it ends in a check
  kRefine,  // a round that tightens the last check's certificate (LossModel::refinement)
  kCycle,   // an active-set cycle on the worker (one worker, and a loss that has them)
  kCheck,   // an exact check: after a cycle, or to end an interval
  kDone,    // the λ path is solved: stop the workers
};

// The rounds between two checks: how many coordinates they sent, whether the interval is over,
// and the largest decrease of F in each of the last rounds pulled (the rounds in flight
// together are judged together: the one after a full round may hold only the leftovers).
class Interval {
 public:
  void reset() {
    sent_ = 0;
    over_ = false;
    recent_.clear();
  }
  void sent(std::uint64_t coordinates) { sent_ += coordinates; }
  std::uint64_t coordinates_sent() const { return sent_; }
  void end() { over_ = true; }
  // Ends the interval (once): by the scheduler, or after `check_every` coordinates.
  bool take_end(std::uint64_t check_every) {
    if (!over_ && sent_ < check_every) return false;
    over_ = false;
    return true;
  }
  // A round pulled: its largest decrease of F, kept for the last `depth` rounds.
  void pulled(double largest, int depth) {
    recent_.push_back(largest);
    if (static_cast<int>(recent_.size()) > depth) recent_.pop_front();
  }
  double largest_recent() const { return recent_.empty() ? 0.0 : *std::max_element(recent_.begin(), recent_.end()); }

  // For a checkpoint: the state as it is, and back.
  bool over() const { return over_; }
  std::vector<double> recent() const { return {recent_.begin(), recent_.end()}; }
  void restore(std::uint64_t sent, bool over, const std::vector<double>& recent) {
    sent_ = sent;
    over_ = over;
    recent_.assign(recent.begin(), recent.end());
  }

 private:
  std::uint64_t sent_ = 0;
  bool over_ = false;
  std::deque<double> recent_;
};

// Checkpoints of the control plane: one is due every `every` checks, right after the check is
// decided (no round in flight then). Snapshot rounds are not counted as rounds, so a run with
// checkpoints reports what one without does; a resumed run starts where it stopped.
class Snapshots {
 public:
  explicit Snapshots(const CheckpointTarget* target) : target_(target) {}

  bool due(Stage stage) const {
    const bool between_checks = stage == Stage::kRounds || stage == Stage::kCycle || stage == Stage::kCheck;
    return target_ && between_checks && reported_ >= last_ + static_cast<std::uint64_t>(std::max(1, target_->every));
  }
  // The round that asks the workers to apply what is queued, write their parts, then answer.
  rounds::Task task() {
    last_ = reported_;
    ++snapshot_rounds_;
    return rounds::Task{static_cast<std::uint8_t>(RoundKind::kSnapshot), static_cast<double>(reported_), {}};
  }
  const CheckpointTarget& target() const { return *target_; }

  void reported() { ++reported_; }
  std::uint64_t checks_reported() const { return reported_; }
  // Rounds the driver sent, less this process's snapshot rounds, plus the resumed run's.
  std::uint64_t rounds(std::uint64_t sent) const { return sent - snapshot_rounds_ + resumed_rounds_; }
  // A resumed run: `reported` checks and `rounds` rounds before it.
  void resume(std::uint64_t reported, std::uint64_t rounds) {
    reported_ = last_ = reported;
    resumed_rounds_ = rounds;
  }

 private:
  const CheckpointTarget* target_;  // null: no checkpoints are taken
  std::uint64_t reported_ = 0;      // checks reported, over the run's life
  std::uint64_t last_ = 0;          // reported_ at the last checkpoint (or the resumed one)
  std::uint64_t snapshot_rounds_ = 0;
  std::uint64_t resumed_rounds_ = 0;
};

}  // namespace gyre::lasso
