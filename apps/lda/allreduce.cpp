// apps/lda/allreduce.cpp — Harp's allreduce and no-sync models for LDA: sample own documents against a replica, sum the replicas' changes or push them.
#include "lda/allreduce.hpp"


#include <numeric>
#include <stdexcept>
#include <string>

#include "gyre/base/thread_arena.hpp"
#include "gyre/collective/communicator.hpp"
#include "gyre/collective/delta_exchange.hpp"
#include "gyre/rotation/phase_follower.hpp"
#include "gyre/rotation/rotation_driver.hpp"
#include "lda/checkpoint.hpp"
#include "lda/distributed.hpp"
#include "lda/epoch_heldout.hpp"
#include "lda/word_topic_block.hpp"

namespace gyre::lda {

std::vector<int> worker_ranks(int workers) {
  std::vector<int> r(static_cast<std::size_t>(workers));
  std::iota(r.begin(), r.end(), 0);
  return r;
}

std::vector<model::Block> starting_blocks(const LdaPlan& plan) {
  std::vector<model::Block> all;
  for (model::BlockId id = 0; id < plan.blocks.rows.size(); ++id)
    all.push_back(unpack_block(starting_block(plan, id), plan.config.topics, model::padded_width(plan.config.topics)));
  return all;
}

namespace {

std::size_t count_values(const std::vector<model::Block>& blocks) {
  std::size_t n = 0;
  for (const auto& b : blocks) n += b.rows() * b.stride();
  return n;
}

// The no-sync model's exchanges: the word-topic counts (every block's, one after another) and
// the topic totals, each a stream of its own.
struct PushedChanges {
  PushedChanges(runtime::Mailbox& inbox, const std::vector<int>& workers, std::size_t counts_size, std::uint32_t topics,
                std::chrono::milliseconds timeout)
      : counts(inbox, workers, counts_size, {timeout, 0}), totals(inbox, workers, topics, {timeout, 1}) {}
  collective::DeltaExchange<std::uint32_t> counts;
  collective::DeltaExchange<std::int64_t> totals;
};

// One worker: its kernel, its replica and the replica as the current sub-epoch started.
class ReplicaWorker {
 public:
  ReplicaWorker(const LdaPlan& plan, int rank, LdaKernel& kernel, runtime::Mailbox& inbox,
                std::chrono::milliseconds timeout, AtPhaseEnd at_phase_end)
      : at_phase_end_(std::move(at_phase_end)),
        plan_(plan),
        rank_(rank),
        kernel_(kernel),
        inbox_(inbox),
        timeout_(timeout),
        workers_(inbox, worker_ranks(plan.config.workers), collective::CollectiveOptions{timeout}),
        arena_(plan.config.threads),
        replica_(starting_blocks(plan)),
        start_(starting_blocks(plan)) {
    kernel_.attach(workers_);
    if (plan.config.model == ComputationModel::kNoSync)
      pushed_.emplace(inbox, worker_ranks(plan.config.workers), count_values(replica_), plan.config.topics, timeout);
  }

  // Runs the phases the driver (member P) starts until it stops the job.
  void run() {
    const int P = plan_.config.workers;
    const auto parts = static_cast<std::uint32_t>(plan_.config.syncs_per_epoch);
    const auto run_phase = [&](std::uint64_t phase, rotation::PhaseKind kind, std::span<const std::byte>) {
      if (kind != rotation::PhaseKind::kTrain) throw std::logic_error("LDA has no evaluation phase");
      const bool initialising = phase == 0 && !plan_.config.start;  // a resumed run starts with a sweep
      for (std::uint32_t part = 0; part < (initialising ? 1 : parts); ++part) {
        arena_.execute([&] {
          for (auto& b : replica_) {
            if (initialising)
              kernel_.add_initial_topics(b);
            else
              kernel_.sweep(b, part);
          }
        });
        if (pushed_)
          push_changes();
        else
          sum_changes();
      }
      if (pushed_) take_pushed(true);
      if (at_phase_end_) {
        std::vector<const model::Block*> handed;  // the replicas are equal: worker 0's stands for all
        if (rank_ == 0)
          for (const auto& b : replica_) handed.push_back(&b);
        at_phase_end_(rank_, phase, kind, handed);
      }
      // The replicas are the job's state now: each block's word part of the likelihood is
      // counted once, by the worker whose rank is the block id mod P.
      return arena_.execute([&] {
        for (const auto& b : replica_)
          if (b.id() % static_cast<model::BlockId>(P) == static_cast<model::BlockId>(rank_)) kernel_.add_word_loglik(b);
        return kernel_.take_phase_sums(kind);
      });
    };
    rotation::follow_phases(inbox_, P, timeout_, run_phase);
  }

  std::vector<model::Block> take_replica() { return std::move(replica_); }

 private:
  // Every block becomes its start plus every worker's change since, and is the next start.
  // Changes travel as unsigned 32-bit integers, whose sums wrap instead of overflowing: the
  // true sums are bounded by the corpus's token counts, so they come out exact, and sums a
  // hostile peer pushed out of range are refused by the check below, never undefined.
  void sum_changes() {
    for (std::size_t b = 0; b < replica_.size(); ++b) {
      std::int32_t* now = replica_[b].counts();
      std::int32_t* from = start_[b].counts();
      const std::size_t n = replica_[b].rows() * replica_[b].stride();
      change_.resize(n);
      for (std::size_t i = 0; i < n; ++i)
        change_[i] = static_cast<std::uint32_t>(now[i]) - static_cast<std::uint32_t>(from[i]);
      workers_.allreduce_sum(std::span<std::uint32_t>(change_));
      for (std::size_t i = 0; i < n; ++i)
        now[i] = from[i] = static_cast<std::int32_t>(static_cast<std::uint32_t>(from[i]) + change_[i]);
      check_block(b, "summing");
    }
    kernel_.sync_totals();
  }

  // D: what this worker changed in the part it sampled goes to every peer, and whatever the
  // peers pushed that has arrived is added, waiting for nobody. The counts stay non-negative
  // all along: a replica is a sum of every worker's own counts, each whole as it was pushed.
  void push_changes() {
    change_.resize(count_values(replica_));
    std::size_t at = 0;
    for (std::size_t b = 0; b < replica_.size(); ++b) {
      const std::int32_t* now = replica_[b].counts();
      const std::int32_t* from = start_[b].counts();
      const std::size_t n = replica_[b].rows() * replica_[b].stride();
      for (std::size_t i = 0; i < n; ++i)
        change_[at + i] = static_cast<std::uint32_t>(now[i]) - static_cast<std::uint32_t>(from[i]);
      at += n;
    }
    pushed_->counts.push(change_);
    pushed_->totals.push(kernel_.take_totals_change());
    take_pushed(false);
  }

  // Adds the peers' pushed changes, those arrived or (`flush`, as a phase ends) every one they
  // have pushed, after which the replicas are equal; the next part's changes count from here.
  void take_pushed(bool flush) {
    const auto add_counts = [&](std::span<const std::uint32_t> change) {
      std::size_t at = 0;
      for (auto& block : replica_) {
        std::int32_t* now = block.counts();
        const std::size_t n = block.rows() * block.stride();
        for (std::size_t i = 0; i < n; ++i)
          now[i] = static_cast<std::int32_t>(static_cast<std::uint32_t>(now[i]) + change[at + i]);
        at += n;
      }
    };
    const auto add_totals = [&](std::span<const std::int64_t> change) { kernel_.add_peer_totals(change); };
    if (flush) {
      pushed_->counts.take_until(pushed_->counts.pushed(), add_counts);
      pushed_->totals.take_until(pushed_->totals.pushed(), add_totals);
      for (std::size_t b = 0; b < replica_.size(); ++b) check_block(b, "adding");
    } else {
      pushed_->counts.take_arrived(add_counts);
      pushed_->totals.take_arrived(add_totals);
    }
    for (std::size_t b = 0; b < replica_.size(); ++b) {
      const std::size_t n = replica_[b].rows() * replica_[b].stride();
      std::copy(replica_[b].counts(), replica_[b].counts() + n, start_[b].counts());
    }
  }

  void check_block(std::size_t b, const char* merging) const {
    try {
      kernel_.check_counts(replica_[b]);
    } catch (const std::invalid_argument& e) {
      throw std::runtime_error("word-topic block " + std::to_string(b) + " after " + merging +
                               " the workers' changes: " + e.what() + " (does every rank have the same corpus?)");
    }
  }

  AtPhaseEnd at_phase_end_;
  const LdaPlan& plan_;
  int rank_;
  LdaKernel& kernel_;
  runtime::Mailbox& inbox_;
  std::chrono::milliseconds timeout_;
  collective::Communicator workers_;
  ThreadArena arena_;
  std::vector<model::Block> replica_, start_;
  std::vector<std::uint32_t> change_;  // C: one block's changes, then their sum; D: every block's
  std::optional<PushedChanges> pushed_;  // D
};

}  // namespace

std::vector<model::Block> run_allreduce_worker(const LdaPlan& plan, int rank, LdaKernel& kernel,
                                               runtime::Mailbox& inbox, std::chrono::milliseconds timeout,
                                               const AtPhaseEnd& at_phase_end) {
  ReplicaWorker worker(plan, rank, kernel, inbox, timeout, at_phase_end);
  worker.run();
  return worker.take_replica();
}

std::optional<LdaModel> train_shared_models(const LdaPlan& plan, const std::vector<data::Corpus>& shards,
                                            const std::vector<std::string>& vocab, std::uint64_t doc_id_limit,
                                            const TrainHooks& hooks, runtime::Backend backend,
                                            std::chrono::milliseconds timeout) {
  const int P = plan.config.workers;
  const bool locking = plan.config.model == ComputationModel::kLocking;
  if (plan.config.model == ComputationModel::kRotation)
    throw std::invalid_argument("train_shared_models: the rotation is train_embedded's");
  if (shards.size() != static_cast<std::size_t>(P)) throw std::invalid_argument("one corpus shard per worker");
  if ((locking || plan.config.model == ComputationModel::kNoSync) && hooks.checkpoints.store)
    throw std::invalid_argument(
        "--checkpoint and --resume work with --model rotation and allreduce only: locking and nosync depend on timing");
  runtime::Job job;
  job.workers = P;
  job.backend = std::move(backend);
  job.roles.push_back("the scheduler");
  const int lock_rank = P + 1;
  if (locking) job.roles.push_back("the lock service");

  std::optional<EpochHeldout> heldout;
  if (hooks.heldout) heldout.emplace(plan, *hooks.heldout);
  double last_loglik = 0;
  const auto on_epoch = [&](const EpochReport& r) {
    last_loglik = r.loglik_per_token;
    if (hooks.on_epoch) hooks.on_epoch(heldout ? heldout->add_to(r) : r);
  };
  std::vector<std::unique_ptr<LdaKernel>> kernels(static_cast<std::size_t>(P));
  // Checkpoints: each worker's part as a sweep ends (worker 0's with the replica), the manifest
  // from the driver's policy.
  auto policy = epoch_policy(plan, on_epoch);
  rotation::RotationOptions checkpointing;  // only its at_phase_end is used
  take_checkpoints(plan, hooks.checkpoints, policy, checkpointing,
                   [&](int w) -> const LdaKernel& { return *kernels[static_cast<std::size_t>(w)]; });
  std::optional<LdaModel> model;
  runtime::run(job, [&](const runtime::Member& m) {
    if (m.rank == P) {
      rotation::RotationDriver(m.mailbox, worker_ranks(P), timeout).run(policy);
      return;
    }
    if (m.rank == lock_rank) {
      serve_word_blocks(plan, m.mailbox, timeout);
      return;
    }
    const data::Corpus& shard = shards[static_cast<std::size_t>(m.rank)];
    auto& kernel = kernels[static_cast<std::size_t>(m.rank)];
    kernel = make_kernel(plan, m.rank, shard);
    if (heldout) heldout->watch(*kernel);
    auto replica = locking ? run_locking_worker(plan, m.rank, *kernel, m.mailbox, timeout, lock_rank)
                           : run_allreduce_worker(plan, m.rank, *kernel, m.mailbox, timeout, checkpointing.at_phase_end);
    if (hooks.on_traffic) hooks.on_traffic(m.group.bytes_sent());
    // The replicas are equal (locking: worker 0 holds the one copy): worker 0 hands in its
    // blocks (packed, as the rotation's are), every worker its doc-topic rows.
    std::vector<model::OwnedBlock> held;
    if (m.rank == 0)
      for (auto& b : replica)
        held.emplace_back(pack_block(b, plan.config.topics, plan.block_shapes.at(b.id()).max_bytes), nullptr);
    replica.clear();
    if (hooks.parts)
      write_parts(plan, m, shard.doc_ids, *kernel, held, vocab, kernel->topic_totals(), last_loglik, *hooks.parts, timeout);
    else if (auto parts = gather_model(plan, m, shard.doc_ids, *kernel, held, doc_id_limit, timeout))
      model = assemble_gathered(plan, vocab, std::move(*parts), kernel->topic_totals());
  });
  if (model) model->loglik_per_token = last_loglik;
  if (hooks.inspect)
    for (int w = 0; w < P; ++w)
      if (kernels[static_cast<std::size_t>(w)]) hooks.inspect(w, *kernels[static_cast<std::size_t>(w)]);
  return model;
}

}  // namespace gyre::lda
