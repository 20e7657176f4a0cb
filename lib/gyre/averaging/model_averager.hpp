// gyre/averaging/model_averager.hpp — asynchronous pairwise averaging of a dense model (Harp's model D, Bagua style).
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "gyre/base/export.hpp"
#include "gyre/runtime/mailbox.hpp"
#include "gyre/wire/channels.hpp"

namespace gyre::averaging {

// Message type of averaging snapshots: the averager channel (0x0101).
inline constexpr std::uint16_t kAveragerMessage = wire::channels::kAverager.at(0);

// Why a snapshot that arrived must be refused, naming its sender, or nullopt when it is sound:
// from one of `peers`, a header of a known kind, exactly `model_size` doubles, all finite.
// Looked at before anything is allocated for it or blended from it.
GYRE_API std::optional<std::string> check_snapshot(const net::Message& m, std::span<const int> peers, std::size_t model_size);

struct AveragerOptions {
  // Period of a round: each round this rank starts exchanges with `fanout` peers.
  std::chrono::milliseconds interval{10};
  // Peers per round, taken in turn around the other members, so every pair meets every
  // ⌈(members − 1) / fanout⌉ rounds. 1 is gossip; members − 1 is everyone each round.
  std::size_t fanout = 1;
  // An exchange a peer has not answered by then is given up (the peer may be aborted); until
  // then that peer is skipped, so at most one exchange per peer is in flight.
  std::chrono::milliseconds timeout{std::chrono::seconds(1)};
  // Snapshots travel with this tag: two averagers (two models) can share one inbox.
  std::uint64_t stream = 0;
};

struct AveragerCounters {
  std::uint64_t rounds = 0;    // rounds run while not aborted
  std::uint64_t sent = 0;      // snapshots handed to the transport: offers and answers
  std::uint64_t received = 0;  // snapshots taken from the inbox, whatever became of them
  std::uint64_t blended = 0;   // snapshots averaged into the model
  std::uint64_t dropped = 0;   // taken while aborted, answers to exchanges given up, crossed offers
  std::uint64_t refused = 0;   // malformed: bad header or length, non-finite value, not a peer
  std::uint64_t expired = 0;   // exchanges given up after `timeout` without an answer
};

// Averages `model` with the other members' models on a thread of its own, while the caller's
// training thread keeps updating it: no barrier, no lock-step. Each round this rank offers a
// snapshot s of its model to a peer, which at once answers with its own model y and moves to
// (y + s)/2; on the answer this rank adds (y − s)/2 to its model as it is by then.
// Why pairwise exchanges: the two changes cancel, so the sum of the models is kept, as in
// AD-PSGD's atomic pairwise averaging, yet nobody waits. Pull-only gossip (blend whatever
// arrives) loses that sum and lets the joint model wander off the optimum (by ~0.3 in the
// convergence test, against < 0.02). abort() or `timeout` cutting an exchange short leaves
// that one pair's half-step unmatched.
//
// Blends change the model as it is at that moment (under `mutex`), so training updates are
// kept, not overwritten. The caller's training thread must hold `mutex` while it writes
// the model; the averager holds it while copying and blending. Do not call abort(), resume()
// or stop() while holding `mutex`.
//
// Snapshots are the model's doubles as they lie in memory: members must share the byte order.
class GYRE_API ModelAverager {
 public:
  // `members`: group ranks taking part, this rank among them. The thread starts at once; its
  // first round is one interval later.
  ModelAverager(runtime::Mailbox& inbox, std::vector<int> members, std::span<double> model, std::mutex& mutex,
                AveragerOptions options = {});
  ModelAverager(const ModelAverager&) = delete;
  ModelAverager& operator=(const ModelAverager&) = delete;
  ~ModelAverager();  // stop() without rethrowing

  // Immediately: once it returns, this rank sends nothing (not even answers) and leaves the
  // model alone until resume(). Snapshots taken from the inbox while aborted are dropped, and
  // so are answers to exchanges offered before: nothing from before resume() is blended after
  // it. (Over tcp, frames handed to the transport before abort() returned may still be on the
  // wire.)
  void abort();
  // Rounds start again within one interval.
  void resume();
  // Starts a round within a few milliseconds, whatever the interval: a trainer whose epochs are
  // shorter than the interval asks for one per epoch, so that its replica mixes at all. Lock
  // free: it may be called while holding `mutex`.
  void round_soon();
  // Returns once `count` snapshots in all have been blended into the model (counters().blended
  // >= count: exchanges this rank offered or answered), true; or false once `deadline` passes or
  // the thread has ended. A trainer that must not run on unmixed asks for the count it saw
  // before a stretch of training plus the exchanges it wants, after round_soon().
  bool wait_blended(std::uint64_t count, net::Clock::time_point deadline);
  bool aborted() const;

  // Ends the thread (within a few milliseconds, whatever the interval) and joins it; then
  // rethrows the failure that ended it, if any (net::GroupClosed when a peer failed).
  void stop();

  AveragerCounters counters() const;
  // Why the thread ended early (a failed peer or closed group), if it did.
  std::optional<std::string> error() const;
  // The latest refused snapshot's reason, naming its sender; the count is counters().refused.
  std::optional<std::string> last_refusal() const;

 private:
  struct Offer {  // an exchange this rank started and the peer has not answered yet
    std::uint64_t id = 0;
    std::shared_ptr<const std::vector<double>> snapshot;
    net::Clock::time_point sent_at;
  };

  void run();
  void round();
  void take(net::Message message);
  void answer(int peer, std::uint64_t id, const Buffer& offered);
  void apply(std::size_t slot, const Buffer& answered);
  void send(int peer, std::uint8_t kind, std::uint64_t id, std::span<const double> values);
  void join() noexcept;

  runtime::Mailbox& inbox_;
  std::vector<int> members_;
  std::vector<int> peers_;  // members_ without this rank, in member order
  std::size_t index_ = 0;   // this rank's position among the members
  std::span<double> model_;
  std::mutex& model_mutex_;
  AveragerOptions options_;

  // Guards everything below. Rounds and blends hold it throughout, so abort(), which takes it,
  // returns only between them.
  mutable std::mutex mutex_;
  std::condition_variable progress_;  // a blend, or the thread ending
  bool aborted_ = false;
  bool stopping_ = false;
  bool ended_ = false;  // the thread has left run()
  std::atomic<bool> round_due_{false};  // outside mutex_: see round_soon()
  std::vector<std::optional<Offer>> offers_;  // per peer slot
  std::uint64_t next_offer_ = 1;
  AveragerCounters counters_;
  std::optional<std::string> last_refusal_;
  std::exception_ptr failure_;
  std::optional<std::string> error_;

  std::thread thread_;
};

}  // namespace gyre::averaging
