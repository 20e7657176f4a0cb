// gyre/locks/lock_table.hpp — who holds which key, who waits for what, and the rule that grants.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "gyre/locks/lock_protocol.hpp"

namespace gyre::locks {

struct LockStats {
  std::uint64_t grants = 0;    // requests granted
  std::uint64_t waits = 0;     // requests that could not be granted when they arrived and queued
  std::uint64_t refusals = 0;  // no-wait requests answered "none free now"
  std::size_t max_queue = 0;   // most requests ever waiting at once
  std::size_t waiting = 0;     // requests waiting now
};

// The lock service's state, with no transport in it so that the grant rule can be tested alone.
//
// Grants are all-or-nothing: a request holds nothing until it holds everything it asked for,
// so a rank that asks while holding nothing can never be part of a deadlock. Waiters are
// served first come, first served: an earlier kAll waiter reserves its keys, so a later
// request (waiting or not) may not take one of them even when it is free; otherwise a stream of
// small requests could starve a large one forever. A waiting kAny request reserves nothing,
// since reserving every candidate would stall everyone behind one flexible request.
//
// Holders are ranks: every key a rank holds is that rank's, whichever of its threads asked.
// Misuse (a malformed request, a release of a key the rank does not hold, a second request
// while one waits) throws std::invalid_argument naming the rank and leaves the table unchanged.
class LockTable {
 public:
  using Clock = std::chrono::steady_clock;

  struct Request {
    int rank = -1;
    std::uint64_t id = 0;
    LockMode mode = LockMode::kAll;
    LockWait wait = LockWait::kUntilFree;
    std::uint32_t count = 0;    // kAny: how many of the candidates; ignored for kAll
    std::vector<LockKey> keys;  // kAll: the keys; kAny: the candidates, most wanted first
  };

  // What became of a request: the keys granted, or none for a refused no-wait request.
  struct Answer {
    int rank = -1;
    std::uint64_t id = 0;
    std::vector<LockKey> keys;
  };

  struct Hold {
    int rank = -1;
    LockKey key = 0;
    Clock::time_point since{};
  };

  explicit LockTable(std::uint32_t keys);

  // Queues the request (or answers it at once) and returns every answer that results.
  std::vector<Answer> submit(Request request, Clock::time_point now);
  // Frees the keys and returns the waiting requests that this lets through, oldest first.
  std::vector<Answer> release(int rank, std::span<const LockKey> keys, Clock::time_point now);
  // Forgets every waiting request (the service stopped granting); returns their ranks.
  std::vector<int> drop_waiting();

  std::uint32_t keys() const noexcept { return static_cast<std::uint32_t>(holder_.size()); }
  std::optional<int> holder(LockKey key) const;
  std::vector<LockKey> held_by(int rank) const;
  bool waiting(int rank) const;
  // The key held longest, if any is held (for the service's lease check).
  std::optional<Hold> oldest_hold() const;
  // Every holder and its keys ("rank 2 held {3}, rank 4 held {0,1}"), for failure reports.
  std::string describe_holders() const;
  LockStats stats() const;

 private:
  void check(const Request& request) const;
  void check_keys(int rank, std::span<const LockKey> keys, const char* what) const;
  // The keys that would satisfy `request` now, honouring reservations; empty when none would.
  std::vector<LockKey> grantable(const Request& request) const;
  void take(int rank, const std::vector<LockKey>& keys, Clock::time_point now);
  std::vector<Answer> serve(Clock::time_point now);

  static constexpr int kFree = -1;
  std::vector<int> holder_;                 // per key: holding rank or kFree
  std::vector<Clock::time_point> since_;    // per held key: when it was granted
  std::set<std::pair<Clock::time_point, LockKey>> holds_;  // held keys by grant time
  std::vector<Request> queue_;              // waiting requests, oldest first
  std::vector<char> reserved_;              // scratch of serve(): keys earlier kAll waiters want
  LockStats stats_;
};

}  // namespace gyre::locks
