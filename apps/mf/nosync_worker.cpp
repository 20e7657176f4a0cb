// apps/mf/nosync_worker.cpp — Harp's no-sync model for MF: train a replica, waiting only to stay within a bounded lead, while a thread averages it with the peers'.
#include <algorithm>
#include <cmath>
#include <mutex>
#include <numeric>

#include "gyre/averaging/model_averager.hpp"
#include "gyre/collective/communicator.hpp"
#include "gyre/ps/peer_barrier.hpp"
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

// Why the replicas are made to mix: a factorisation is unique only up to a rotation, so
// replicas that train apart for long settle on factors of their own, and their mean fits
// nobody's users. Exchanges paced by the clock alone (`average_ms`) left that to timing: in
// tests/apps/mf/gyre_mf_multiprocess_test.cpp's problem, whose 20 epochs take ~0.2 s, the
// written mean's test RMSE was 0.55-0.77 with 3 workers in one process and 0.61-0.76 across 3
// processes, and under load one process trained most of its epochs before the others had
// begun. So the lead over the slowest replica is bounded (an SSP rule over epochs, `max_lead`)
// and an epoch ends only after as many exchanges as the worker has peers (or the averager's
// timeout): 0.207-0.212 in 20 runs of 3 processes beside two busy loops on 2 cores.
ps::Barrier lead_rule(const MfConfig& c) {
  if (c.max_lead < 0) return ps::Barrier(ps::BarrierSpec{ps::BarrierKind::kAsp});
  return ps::Barrier(ps::BarrierSpec{ps::BarrierKind::kSsp, c.max_lead});
}

// The replicas end apart; the model is their mean, taken once every worker has ended its last
// epoch (`lead.finish()`), with the averagers answering until then.
void merge_replicas(ModelWorker& w, averaging::ModelAverager& averager, ps::PeerBarrier& lead, const Mirror& mirror,
                    std::vector<model::Block>& replica) {
  lead.finish();
  averager.stop();
  for (auto& b : replica) mirror.load(b);
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
  ps::PeerBarrier lead(w.inbox, w.worker_ranks(), lead_rule(c), ps::PeerBarrierOptions{w.timeout, c.seed});
  std::uint64_t phase = 0;
  std::uint64_t blends = 0;  // the averager's count when this epoch began
  for (int epoch = 1; epoch <= c.epochs; ++epoch) {
    const bool last = epoch == c.epochs;
    lead.wait();
    for (auto id : w.block_order()) {
      // A failed peer ends the job now, not when this worker runs out of epochs.
      if (const auto why = averager.error()) throw runtime::JobFailed(-1, runtime::FailureCause::kPeerLost, *why);
      std::lock_guard lock(mutex);
      mirror.load(replica[id]);
      w.train(replica[id]);
      mirror.store(replica[id]);
    }
    lead.tick();
    report(w, phase++, rotation::PhaseKind::kTrain);
    // As many exchanges an epoch as there are peers (lead_rule() says why).
    averager.round_soon();
    averager.wait_blended(blends + static_cast<std::uint64_t>(w.workers() - 1), net::Clock::now() + options.timeout);
    blends = averager.counters().blended;
    if (last) {
      // The model written is the mean, and the last figure reported is that model's (each
      // replica alone scored apart from it: 0.477 against 0.822 in issue 36).
      merge_replicas(w, averager, lead, mirror, replica);
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
  if (c.epochs == 0) merge_replicas(w, averager, lead, mirror, replica);
}

}  // namespace gyre::mf
