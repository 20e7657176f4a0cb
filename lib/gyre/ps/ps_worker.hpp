// gyre/ps/ps_worker.hpp — a worker's handle on a parameter-server job: get, set, push, keys, barrier, stop.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <vector>

#include "gyre/ps/peer_barrier.hpp"
#include "gyre/ps/ps_job.hpp"
#include "gyre/ps/table_rules.hpp"
#include "gyre/runtime/mailbox.hpp"

namespace gyre::ps {

struct PsWorkerOptions {
  std::chrono::milliseconds timeout{std::chrono::minutes(10)};
  std::uint64_t seed = 1;  // pBSP/pSSP peer samples
  // For barriers without a staleness bound (ASP, pBSP, pSSP's sample only bounds the sampled
  // peers): how many clocks a cached value may be reused before it is read again.
  std::int64_t cache_clocks = 0;
  std::vector<Table> tables;  // keys whose reads follow rules of their own (ps_job.hpp)
};

// The worker keeps a cache of what it read. get() serves a key from it while the cached value
// includes every worker's pushes up to clock c − s (c: this worker's clock, s: the barrier's
// staleness); otherwise it reads the key's server, which answers once its clock gets there. So
// under BSP a worker reads everybody's pushes of the previous step, under SSP(s) at most s
// steps older, and under ASP whatever the server has. Its own pushes not yet sent are added to
// every value it returns (read-my-writes). barrier() sends the step's pushes and the clock to
// the servers, then waits on the barrier rule (PeerBarrier, over the same group).
class PsWorker final : public Worker {
 public:
  PsWorker(runtime::Mailbox& inbox, PsLayout layout, Barrier barrier, PsWorkerOptions options = {});
  ~PsWorker() override;

  int workers() const noexcept override { return layout_.workers; }
  int index() const noexcept override { return index_; }
  std::int64_t clock() const noexcept override { return clock_; }
  const PsLayout& layout() const noexcept { return layout_; }

  Versioned get(Key key) override;
  // Several keys with one read per server.
  std::vector<Versioned> get(std::span<const Key> keys) override;
  // Stores `value` as it is (sent at once).
  void set(Key key, Value value) override;
  // Adds `delta` to the key's value (through the servers' fold); sent at the next barrier().
  void push(Key key, std::span<const double> delta) override;
  // Every key the servers hold, ascending (asked of the servers).
  std::vector<Key> keys() override;

  // Ends this worker's step: pushes and clock to the servers, then the barrier rule. Returns
  // the time held at the barrier.
  std::chrono::nanoseconds barrier();
  // This worker is done: sends what is left, lets the peers stop waiting for it, tells the
  // servers (with its report). Returns once every worker has stopped.
  void stop();

  PsWorkerReport report() const;

 private:
  struct Cached {
    Value value;  // as the server sent it
    std::int64_t clock = 0;
  };
  void flush();
  void check_key(Key key) const;

  runtime::Mailbox& inbox_;
  PsLayout layout_;
  int index_;
  PsWorkerOptions options_;
  TableRules rules_;  // which rule bounds a read of each key
  std::unique_ptr<PeerBarrier> barrier_;
  std::int64_t clock_ = 0;
  std::map<Key, Cached> cache_;
  std::map<Key, Value> unsent_;  // pushed this step, not yet sent
  std::uint64_t next_request_ = 0;
  std::uint64_t reads_ = 0, cache_hits_ = 0;  // values read from servers, and served from the cache
  std::chrono::nanoseconds held_{0};
  bool stopped_ = false;
};

}  // namespace gyre::ps
