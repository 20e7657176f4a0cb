// gyre/ps/ps_job.hpp — a keyed-model job: the Worker a program sees, the key layouts, and its two runners, on
// the parameter server (run_ps) or peer to peer (run_p2p).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "gyre/base/export.hpp"
#include "gyre/ps/barrier.hpp"
#include "gyre/runtime/job.hpp"

namespace gyre::ps {

// A worker's view of a keyed model and the program it runs: the same on the parameter server and peer to peer.

using Key = std::uint64_t;
using Value = std::vector<double>;
using KeyValues = std::vector<std::pair<Key, Value>>;

// The `pull` verb: folds one worker's update for `key` into the stored value. Default: adds it.
using Fold = std::function<void(Key key, Value& stored, std::span<const double> update)>;

struct Versioned {
  Value value;
  std::int64_t clock = 0;  // the clock the value includes every worker's pushes up to
};

// What a program's step sees of its worker. The two engines differ only in where the keys live:
// on servers of their own (run_ps), or each with one of the workers, which owns it (run_p2p: the
// parameter server's servers co-located with the workers). A program written against Worker runs
// on either; the engine ends the step (barrier) and the worker (stop) itself.
class GYRE_API Worker {
 public:
  virtual ~Worker();
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;

  virtual int index() const noexcept = 0;    // this worker's number, 0 … workers()−1
  virtual int workers() const noexcept = 0;  // how many workers the job has
  virtual std::int64_t clock() const noexcept = 0;  // steps this worker has ended

  // A key's value as the barrier rule lets this worker read it (under BSP, every worker's pushes
  // of the steps before this one; under SSP(s), at most s steps older), with this step's own
  // pushes added (read-my-writes).
  virtual Versioned get(Key key) = 0;
  virtual std::vector<Versioned> get(std::span<const Key> keys) = 0;  // one read per holder
  // Stores `value` as it is (sent at once; under BSP/SSP it takes effect with the step's pushes).
  virtual void set(Key key, Value value) = 0;
  // Adds `delta` to the key's value through the holder's fold, once; sent when the step ends.
  virtual void push(Key key, std::span<const double> delta) = 0;
  // Every key the model holds, ascending.
  virtual std::vector<Key> keys() = 0;

 protected:
  Worker() = default;
};

// The app's side of a job, in the verbs of the parameter-server family (Owl, Petuum, ps-lite).
struct Program {
  // Which keys a worker updates in its next step (its clock is given). Empty: every key.
  std::function<std::vector<Key>(int worker, std::int64_t clock)> schedule;
  // The worker's step: reads the model through worker.get(), returns updates for the keys' holders.
  std::function<KeyValues(Worker& worker, std::span<const Key> keys)> push;
  // How a holder folds an update into a stored value. Empty: adds it.
  Fold pull;
  // Asked after each barrier: true ends this worker. Required.
  std::function<bool(Worker& worker)> stop;
  // A key's value before any push. Empty: zeros.
  std::function<Value(Key)> initial;
};

enum class Sharding {
  kRange,  // server s holds the s-th of S contiguous runs of keys: neighbours together
  kHash,   // a mixed hash of the key picks the server: hot neighbouring keys spread out
};

// Ranks 0 … workers−1 are the workers, workers … workers+servers−1 the servers. Keys are
// 0 … keys−1, each holding value_size doubles.
struct GYRE_API PsLayout {
  int workers = 1;
  int servers = 1;
  Key keys = 0;
  std::uint32_t value_size = 1;
  Sharding sharding = Sharding::kRange;

  int server_of(Key key) const;  // 0 … servers−1
  int server_rank(int server) const { return workers + server; }
  std::vector<int> worker_ranks() const;
  std::vector<int> all_ranks() const;
  void validate() const;  // throws std::invalid_argument
};

}  // namespace gyre::ps

namespace gyre::ps::p2p {

// Peers are ranks 0 … peers−1; every one computes and every one owns a part of the keys
// 0 … keys−1 (each value_size doubles), by contiguous ranges or by hash, as the parameter
// server deals keys to its servers (ps::PsLayout::server_of, here with one "server" per peer).
struct GYRE_API P2pLayout {
  int peers = 1;
  Key keys = 0;
  std::uint32_t value_size = 1;
  Sharding sharding = Sharding::kRange;

  int owner_of(Key key) const;  // 0 … peers−1
  std::vector<int> peer_ranks() const;
  void validate() const;  // throws std::invalid_argument
};

}  // namespace gyre::ps::p2p

namespace gyre::ps {

// The app's side (Worker, above): the same program runs peer to peer (run_p2p, below).
using PsProgram = Program;

// A table: a run of keys whose reads follow a barrier rule of their own (Bösen's per-table
// staleness), so that a small fast-changing table can be read tight while a large slow one is
// read loose. The job's rule (the options' `barrier`) paces every worker's steps and bounds the
// reads of keys in no table; a table's rule that bounds staleness (BSP, SSP) holds a read of a
// worker at clock c until every worker's pushes up to its required(c) are in, whatever the
// job's rule; one that does not (ASP, pBSP, pSSP) bounds no read. So the job's rule is best the
// loosest: a worker then waits only where a table asks it to.
struct Table {
  std::string name;  // for messages
  Key first = 0;     // keys first … first+count−1
  Key count = 0;
  Barrier barrier;
};

// What a worker did, sent to the servers with its stop (so process 0 can report on every worker).
struct PsWorkerReport {
  std::int64_t steps = 0;
  std::chrono::nanoseconds held{0};  // at the barrier
  std::uint64_t reads = 0, cache_hits = 0, barrier_queries = 0;
};

struct PsJobOptions {
  Barrier barrier;  // a BarrierSpec, or an embedder's BarrierRule with its sampling
  std::chrono::milliseconds timeout{std::chrono::minutes(10)};
  std::uint64_t seed = 1;
  // For barriers without a staleness bound (ASP, pBSP; pSSP's sample only bounds the sampled
  // peers): how many clocks a cached value may be reused before it is read again.
  std::int64_t cache_clocks = 0;
  // Keys whose reads follow rules of their own (Table, above); disjoint. Empty: one rule.
  std::vector<Table> tables;
  // Whether the servers fold each step's pushes in worker order once all have come
  // (PsServerOptions::ordered): every worker's step then reads the same sums, and a run repeats
  // bit for bit. Unset: on under BSP (textbook BSP), off under any looser rule (folded as they
  // arrive). Off under BSP lets a fast worker's pushes in early, in arrival order.
  std::optional<bool> ordered_folds;
};

struct PsJobResult {
  std::vector<Value> values;  // by key, as the servers hold them at the end
  std::vector<PsWorkerReport> workers;  // as the workers reported them to server 0
  std::uint64_t deferred_reads = 0;  // reads the servers held back for the staleness bound
};

// The job of a parameter-server run: the layout's workers, then its servers ("the server", or
// "server s"), linked by `backend`. Across processes, worker r runs in process r and server s
// in process s mod P (so S servers spread over the processes).
GYRE_API runtime::Job ps_job(const PsLayout& layout, runtime::Backend backend);

// Runs this process's members of `job` (every member, on one machine; across processes, one
// worker per process) to the end. If any part fails the whole job stops and the root cause is
// rethrown (runtime::run). Returns the whole model where server 0 runs: on one machine, or in
// process 0, which the other servers hand their parts to at the end; nullopt in the other
// processes, which hold no whole model.
GYRE_API std::optional<PsJobResult> run_ps(const runtime::Job& job, const PsLayout& layout, const PsProgram& program,
                                           const PsJobOptions& options);

}  // namespace gyre::ps

namespace gyre::ps::p2p {

// A peer-to-peer job (Owl's third engine): every peer computes and owns a part of the model; no server.

// The app's side (Worker, above), in Actor's verbs: schedule, push, pull (the owners' fold),
// barrier (the options' rule), stop. The same program runs on the parameter server (run_ps, above):
// peer to peer is the parameter server with a server co-located with each worker, which owns
// that server's keys.
using P2pProgram = ps::Program;

// What a peer did.
struct P2pPeerReport {
  std::int64_t steps = 0;
  std::chrono::nanoseconds held{0};  // at the barrier
  std::uint64_t remote_reads = 0, pushes_sent = 0, barrier_queries = 0;
  std::uint64_t held_reads = 0;  // other peers' reads this peer's owner held for their bound
};

struct P2pJobOptions {
  Barrier barrier;  // a BarrierSpec, or an embedder's BarrierRule with its sampling
  std::chrono::milliseconds timeout{std::chrono::minutes(10)};
  std::uint64_t seed = 1;
  std::vector<Table> tables;  // as in ps::PsJobOptions
};

struct P2pJobResult {
  std::vector<Value> values;                  // by key
  std::vector<std::uint64_t> pushes_applied;  // by key: pushes its owner folded in
  std::vector<P2pPeerReport> peers;           // by peer
};

// The job of a peer-to-peer run: layout.peers workers and no other role.
GYRE_API runtime::Job p2p_job(const P2pLayout& layout, runtime::Backend backend);

// Runs this process's peers of `job` (every peer, on one machine; across processes, one per
// process) to the end. If any peer fails the whole job stops and the root cause is rethrown
// (runtime::run), naming it. Returns the whole model on one machine or in process 0, where
// peer 0 collects every other peer's keys, counts and report at the end; nullopt in the other
// processes.
GYRE_API std::optional<P2pJobResult> run_p2p(const runtime::Job& job, const P2pLayout& layout, const P2pProgram& program,
                                             const P2pJobOptions& options);

}  // namespace gyre::ps::p2p
