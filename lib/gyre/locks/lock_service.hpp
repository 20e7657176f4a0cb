// gyre/locks/lock_service.hpp — Harp's Locking model: the scheduler's rank grants keys to workers on demand.
#pragma once

#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "gyre/locks/lock_table.hpp"
#include "gyre/runtime/mailbox.hpp"

namespace gyre::locks {

struct LockServiceOptions {
  // A rank that holds a key for longer than this is taken for dead and the job fails. A worker
  // that dies without its link failing (a thread that ended, a hung process) is caught here.
  std::chrono::milliseconds hold_timeout{std::chrono::minutes(10)};
  // No message from any worker for this long while some have not finished fails the job too,
  // so that run() ends even when the silent worker held nothing.
  std::chrono::milliseconds idle_timeout{std::chrono::minutes(10)};
};

// A kLockAcquire as the service decodes it, for a table of `keys` keys: the header's mode and
// wait, and at most `keys` keys, before the table checks them (range, repeats, counts) on
// submit. Throws wire::DecodeError; the service names the sender.
LockTable::Request decode_lock_request(const net::Message& m, std::uint32_t keys);

// Serves LockClients on `workers` from the service's rank, on the thread that calls run(). It
// reads through an Inbox and takes only lock messages from its workers, so the rank's other
// consumers (a driver, collectives) can share the group.
//
// A dead holder's keys are never handed on: the job is over, since whatever the holder was
// doing with them is lost. So on a transport failure (a peer's link broke, the group closed,
// an interrupting message), a hold past hold_timeout, a client's abort or any misuse (a
// malformed message, a release of a key the rank does not hold, finishing while holding keys),
// the service tells every worker with fail_job — the text names the rank at fault and every
// key each rank held — and run() throws JobFailed with the same text. A waiting client's call
// then throws JobFailed instead of being granted anything.
class LockService {
 public:
  LockService(runtime::Mailbox& inbox, std::vector<int> workers, std::uint32_t keys, LockServiceOptions options = {});
  // A service whose key k guards `values[k]`: a grant hands each key's value to the holder
  // (kLockValue before the grant) and the holder hands it back, of the same size, before the
  // release. A value is thus only ever where its lock is, which is what lets Harp's locking
  // model keep one copy of the model across processes. A release without the value, a value of
  // another size or from a rank that does not hold the key fails the job like any misuse.
  LockService(runtime::Mailbox& inbox, std::vector<int> workers, std::vector<Buffer> values,
              LockServiceOptions options = {});

  // Serves until every worker has finished (LockClient::finish) holding nothing; returns the
  // counters. Throws JobFailed as described above.
  LockStats run();

  // From any thread: grant nothing more. Waiting requests and later ones are answered "stopped";
  // releases are still taken, and run() still returns once every worker has finished. Does
  // nothing once run() has returned.
  void stop();

  // The counters so far, from any thread.
  LockStats stats() const;

  // After run() has returned: every guarded value as its last holder handed it back.
  std::vector<Buffer> take_values();

 private:
  bool accepts(const net::Message& m) const;
  void handle(net::Message m);
  void acquire(const net::Message& m);
  void release(int worker, const net::Message& m);
  void finish(int worker);
  void take_value(int worker, net::Message m);
  void stop_granting();
  void answer(const std::vector<LockTable::Answer>& answers);
  void tell_stopped(int worker);
  void check_timeouts(net::Clock::time_point now);
  // `rank` failed (or -1: unknown); `cause` is the text, to which the holdings are added.
  [[noreturn]] void fail(int rank, runtime::FailureCause category, const std::string& cause);
  std::size_t index_of(int rank) const;
  void publish();
  void drain_wake();

  runtime::Mailbox& inbox_;
  std::vector<int> workers_;
  LockServiceOptions options_;
  LockTable table_;
  std::vector<char> finished_;  // per worker index: sent kLockFinish
  std::vector<char> told_;      // per worker index: sent kLockStop
  std::size_t unfinished_;
  bool stopping_ = false;
  net::Clock::time_point last_heard_{};
  bool wake_seen_ = false;
  // Guarded values (empty when the keys guard nothing): each key's value, its size, and whether
  // it is here rather than with its holder.
  std::vector<Buffer> values_;
  std::vector<std::size_t> value_size_;
  std::vector<char> value_here_;

  mutable std::mutex mutex_;  // guards the fields below, shared with stop() and stats()
  LockStats published_;
  bool wake_sent_ = false;
  bool ended_ = false;
};

}  // namespace gyre::locks
