// apps/mf/nosync_worker.cpp — Harp's no-sync model for MF: train a replica without waiting while a thread averages it with the peers'.
#include <algorithm>
#include <cmath>
#include <mutex>
#include <numeric>

#include "gyre/averaging/model_averager.hpp"
#include "gyre/collective/communicator.hpp"
#include "gyre/rotation/protocol.hpp"
#include "gyre/rotation/rotation_driver.hpp"
#include "gyre/wire/codec.hpp"
#include "mf/item_replica.hpp"
#include "mf/model_workers.hpp"

namespace gyre::mf {
namespace {

// The averager works on doubles; the kernel on float blocks. The doubles are the replica's
// truth: a block is copied in before it is trained and out after, both under the averager's
// mutex, so a blend lands either before the training of a block or after it, never inside.
struct Mirror {
  std::vector<double> values;
  std::vector<std::size_t> offset;  // per block

  explicit Mirror(const std::vector<model::Block>& blocks) {
    for (const auto& b : blocks) {
      offset.push_back(values.size());
      values.insert(values.end(), b.data(), b.data() + b.rows() * b.stride());
    }
  }
  void load(model::Block& b) const {
    auto out = b.values();
    for (std::size_t i = 0; i < out.size(); ++i) out[i] = static_cast<float>(values[offset[b.id()] + i]);
  }
  void store(const model::Block& b) {
    const float* in = b.data();
    for (std::size_t i = 0; i < b.rows() * b.stride(); ++i) values[offset[b.id()] + i] = in[i];
  }
};

// Tells the scheduler's PhaseTally that this worker has ended a phase.
// After a training phase the rate moves on from this worker's own held-out ratings: its workers
// never wait for the scheduler, so they cannot wait for its decision either.
void report(ModelWorker& w, std::uint64_t phase, rotation::PhaseKind kind) {
  const auto sums = w.kernel.take_phase_sums(kind);
  if (kind == rotation::PhaseKind::kTrain) w.kernel.steer_rate(rotation::report_of<MfReport>(sums));
  w.inbox.group().send(w.driver_rank(), rotation::encode_phase_done(phase, sums));
}

// The replicas end apart; the model is their mean.
void average(ModelWorker& w, std::vector<model::Block>& replica) {
  std::vector<model::BlockId> all(replica.size());
  std::iota(all.begin(), all.end(), model::BlockId{0});
  auto flat = gather_values(replica, all);
  collective::Communicator workers(w.inbox, w.worker_ranks(), collective::CollectiveOptions{w.timeout});
  workers.allreduce_sum(std::span<float>(flat));
  const auto n = static_cast<float>(w.workers());
  for (auto& x : flat) x /= n;
  scatter_values(flat, replica, all);
}

}  // namespace

void run_nosync_worker(ModelWorker& w, std::vector<model::Block>& replica) {
  const auto& c = w.plan.config;
  Mirror mirror(replica);
  std::mutex mutex;
  averaging::AveragerOptions options;
  options.interval = std::chrono::milliseconds(std::lround(c.average_ms));  // whole, validate() made sure
  options.timeout = std::max(w.timeout / 100, std::chrono::milliseconds(1000));
  averaging::ModelAverager averager(w.inbox, w.worker_ranks(), mirror.values, mutex, options);
  std::uint64_t phase = 0;
  for (int epoch = 1; epoch <= c.epochs; ++epoch) {
    for (auto id : w.block_order()) {
      // A failed peer ends the job now, not when this worker runs out of epochs.
      if (const auto why = averager.error()) throw runtime::JobFailed(-1, runtime::FailureCause::kPeerLost, *why);
      std::lock_guard lock(mutex);
      mirror.load(replica[id]);
      w.train(replica[id]);
      mirror.store(replica[id]);
    }
    report(w, phase++, rotation::PhaseKind::kTrain);
    averager.round_soon();  // at least one exchange an epoch, however short the epochs
    const bool last = epoch == c.epochs;
    if (last) {
      // The model written is the replicas' mean, and the last figure reported is that model's
      // (each replica alone scored apart from it: 0.477 against 0.822 in issue 36).
      averager.stop();
      for (auto& b : replica) mirror.load(b);
      average(w, replica);
    }
    if (w.plan.has_test && evaluates_after(c, c.first_epoch + epoch)) {
      if (!last) {
        std::lock_guard lock(mutex);
        for (auto& b : replica) mirror.load(b);
      }
      for (const auto& b : replica) w.evaluate(b);
      report(w, phase++, rotation::PhaseKind::kEvaluate);
    }
  }
  if (c.epochs == 0) {
    averager.stop();
    average(w, replica);
  }
}

}  // namespace gyre::mf
