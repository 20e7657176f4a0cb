// gyre/ps/peer_barrier.hpp — a worker's barrier run over the data plane: it asks peers for their clocks.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#include "gyre/ps/barrier.hpp"
#include "gyre/runtime/mailbox.hpp"
#include "gyre/wire/channels.hpp"

namespace gyre::ps {

// Message types of the clock exchange: the clock channel (0x30–).
enum ClockMessage : std::uint16_t {
  kClockQuery = wire::channels::kClock.at(0),     // "tell me once your clock reaches T"; tag: the asker's query number
  kClockAnswer = wire::channels::kClock.at(1),    // the clock, sent as soon as it is ≥ T; tag echoes the query
  kClockFinished = wire::channels::kClock.at(2),  // "I take no more steps and ask nothing more"
};

// The clock a kClockQuery, kClockAnswer or kClockFinished carries (its body: one little-endian i64).
// Throws wire::DecodeError naming the sender when the body is not that.
std::int64_t decode_clock(const net::Message& m);

struct PeerBarrierOptions {
  // Longest wait for a peer's answer; past it wait() throws naming the peers that were silent.
  std::chrono::milliseconds timeout{std::chrono::minutes(10)};
  std::uint64_t seed = 1;  // the peer samples of pBSP and pSSP
};

// No global state and no coordinator: before each step the worker asks the peers its barrier
// looks at (all of them for BSP and SSP, β drawn ones for pBSP and pSSP, none for ASP) to
// answer once their clock reaches what it needs, and goes on once the rule, given the clocks
// heard so far, says so (for the built-in rules: when all have answered). Any BarrierRule
// runs here, so any engine whose workers share a group (the parameter server, a peer-to-peer
// engine) gets every rule; under Sampling::kPerCheck each answer is a re-check with a new sample. A peer
// answers from a service thread, so a busy peer answers at once if it is already far enough,
// and the moment it gets there if not. Answers carry the actual clock, which is remembered
// (clocks only grow), so under SSP most steps ask nobody.
//
// What peers send is checked against that protocol, and a breach ends the barrier with an
// error naming the sender: a peer asks only while it has no question pending here and has
// not finished, finishes once, and answers with a clock at least the one asked for.
class PeerBarrier {
 public:
  // `workers`: the group ranks of every worker under this barrier, this rank among them.
  PeerBarrier(runtime::Mailbox& inbox, std::vector<int> workers, Barrier barrier, PeerBarrierOptions options = {});
  ~PeerBarrier();
  PeerBarrier(const PeerBarrier&) = delete;
  PeerBarrier& operator=(const PeerBarrier&) = delete;

  std::int64_t clock() const;
  // Completes a step: the clock goes up by one and peers waiting for that hear of it.
  void tick();
  // Returns once the barrier lets this worker start its next step, with the time it was held.
  // Throws on a peer's failure (net::GroupClosed) or silence past the timeout, naming it.
  std::chrono::nanoseconds wait();
  // This worker takes no more steps, so nobody waits for it any more. Returns once every peer
  // has finished too (until then it answers their questions), so no question goes unanswered.
  void finish();

  std::uint64_t queries_sent() const noexcept { return queries_sent_; }
  std::uint64_t waits() const noexcept { return waits_; }  // wait() calls that had to hold

 private:
  void serve();
  void answer(int peer, std::uint64_t query, std::int64_t clock);
  [[noreturn]] void rethrow_service_error();
  int index_of(int rank) const;
  // Waits for one answer to a question in asked_ and records the clock it brings.
  void take_answer(net::Clock::time_point deadline);

  runtime::Mailbox& inbox_;
  std::vector<int> workers_;
  int self_ = -1;  // index into workers_
  Barrier barrier_;
  PeerBarrierOptions options_;
  Random random_{0, 0};  // seeded in the constructor, once this rank's index is known
  std::vector<int> sample_;
  std::vector<std::int64_t> known_;  // the highest clock each peer has told us
  struct Question {
    std::uint64_t query;
    int peer;  // worker index
    std::int64_t threshold;
  };
  std::vector<Question> asked_;  // unanswered, at most one per peer
  std::uint64_t next_query_ = 0;
  std::uint64_t queries_sent_ = 0;
  std::uint64_t waits_ = 0;

  struct Pending {
    int peer;
    std::uint64_t query;
    std::int64_t threshold;
  };
  mutable std::mutex mutex_;
  std::condition_variable finished_changed_;
  std::int64_t clock_ = 0;
  bool finished_ = false;
  std::vector<char> peer_finished_;  // per worker index: sent kClockFinished
  std::vector<Pending> pending_;
  std::exception_ptr service_error_;
  std::atomic<bool> stop_{false};
  std::thread service_;
};

}  // namespace gyre::ps
