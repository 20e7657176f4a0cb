// gyre/ps/ps_server.hpp — one server of a parameter-server job: holds its shard of the keys, folds pushes in, answers reads.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <span>
#include <vector>

#include "gyre/ps/clocked_store.hpp"
#include "gyre/ps/ps_job.hpp"
#include "gyre/ps/ps_worker.hpp"
#include "gyre/runtime/mailbox.hpp"

namespace gyre::ps {

struct PsServerOptions {
  std::chrono::milliseconds timeout{std::chrono::minutes(10)};  // longest silence from every worker
  Fold pull;                                                    // empty: add
  std::function<Value(Key)> initial;                            // empty: zeros
  // Holds each step's pushes and sets until every worker has reported that step, then folds
  // them in by (step, worker): the stored values no longer depend on the order messages
  // arrive in, so a BSP run (whose reads wait for the same clock) repeats bit for bit.
  bool ordered = false;
};

// The server clock is the lowest clock every worker has reported: all pushes of steps up to it
// are in (a worker sends its pushes, then its clock, on one ordered link). A read that asks for
// clock c is answered once the server clock reaches c — how SSP reads stay within s clocks of
// the truth — and at once for barriers without a bound.
class PsServer {
 public:
  PsServer(runtime::Mailbox& inbox, PsLayout layout, int index, PsServerOptions options = {});

  // Serves until every worker has stopped. A malformed or misaddressed message fails the whole
  // job, naming its sender (runtime::JobFailed); so does a worker's failure.
  void run();

  std::int64_t clock() const { return store_.slowest(); }
  const std::map<Key, Value>& values() const noexcept { return store_.values(); }
  std::uint64_t pushes() const noexcept { return pushes_; }
  // Each worker's report, as it came with its stop.
  const std::vector<PsWorkerReport>& reports() const noexcept { return reports_; }
  std::uint64_t deferred_reads() const noexcept { return store_.held_reads(); }

 private:
  void handle(const net::Message& m);
  void answer(const HeldRead& r);
  // Worker w has reached `clock`: folds what is due and answers the reads now due.
  void advance(int w, std::int64_t clock);
  // Throws (naming the sender) unless this server holds `key`.
  void check_held(Key key, int sender) const;
  Value& stored(Key key, int sender);

  runtime::Mailbox& inbox_;
  PsLayout layout_;
  int index_;
  PsServerOptions options_;
  ClockedStore store_;  // the members are the workers
  std::vector<PsWorkerReport> reports_;
  int stopped_ = 0;
  std::uint64_t pushes_ = 0;
};

}  // namespace gyre::ps
