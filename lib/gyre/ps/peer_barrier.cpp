// gyre/ps/peer_barrier.cpp — clock questions and answers between workers, and the wait built on them.
#include "gyre/ps/peer_barrier.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "gyre/base/random.hpp"
#include "gyre/runtime/receiver.hpp"
#include "gyre/wire/body.hpp"

namespace gyre::ps {
namespace {

net::Message clock_message(ClockMessage type, std::uint64_t tag, std::int64_t value) {
  net::Message m;
  m.type = type;
  m.tag = tag;
  m.body = wire::Writer(sizeof value).put(value).finish();
  return m;
}

// Whether the service thread looks again for a stop request between messages.
constexpr auto kServePoll = std::chrono::milliseconds(20);

}  // namespace

std::int64_t decode_clock(const net::Message& m) {
  if (m.body.size() != sizeof(std::int64_t))
    throw wire::DecodeError("clock message type " + std::to_string(m.type) + " from rank " + std::to_string(m.sender) +
                            " has " + std::to_string(m.body.size()) + " bytes where 8 were expected");
  return wire::Reader(m.body.bytes()).get<std::int64_t>("the clock");
}

PeerBarrier::PeerBarrier(runtime::Mailbox& inbox, std::vector<int> workers, Barrier barrier, PeerBarrierOptions options)
    : inbox_(inbox), workers_(std::move(workers)), barrier_(std::move(barrier)), options_(options),
      known_(workers_.size(), 0), peer_finished_(workers_.size(), 0) {
  self_ = index_of(inbox_.group().rank());
  if (self_ < 0) throw std::invalid_argument("peer barrier: this rank is not one of its workers");
  random_ = Random(options_.seed * kGoldenGamma, static_cast<std::uint64_t>(self_));
  service_ = std::thread([this] { serve(); });
}

PeerBarrier::~PeerBarrier() {
  stop_ = true;
  if (service_.joinable()) service_.join();
}

int PeerBarrier::index_of(int rank) const {
  const auto it = std::find(workers_.begin(), workers_.end(), rank);
  return it == workers_.end() ? -1 : static_cast<int>(it - workers_.begin());
}

std::int64_t PeerBarrier::clock() const {
  std::lock_guard lock(mutex_);
  return clock_;
}

void PeerBarrier::answer(int peer, std::uint64_t query, std::int64_t clock) {
  inbox_.group().send(peer, clock_message(kClockAnswer, query, clock));
}

void PeerBarrier::tick() {
  std::lock_guard lock(mutex_);
  if (finished_) throw std::logic_error("peer barrier: tick() after finish()");
  ++clock_;
  // Answer, and drop, every question the new clock settles.
  std::erase_if(pending_, [&](const Pending& p) {
    if (p.threshold > clock_) return false;
    answer(p.peer, p.query, clock_);
    return true;
  });
}

void PeerBarrier::serve() {
  const auto accept = [](const net::Message& m) { return m.type == kClockQuery || m.type == kClockFinished; };
  try {
    while (!stop_) {
      auto m = inbox_.receive(accept, net::Clock::now() + kServePoll);
      if (!m) continue;
      const int peer = index_of(m->sender);
      const std::string from = "clock message from rank " + std::to_string(m->sender);
      if (peer < 0 || peer == self_) throw std::runtime_error(from + ", not a peer");
      std::lock_guard lock(mutex_);
      // A finished peer asks nothing more, and one that asks waits for the answer before it
      // asks again: so pending_ holds at most one question per peer.
      if (peer_finished_[static_cast<std::size_t>(peer)]) throw std::runtime_error(from + " after it finished");
      if (m->type == kClockFinished) {
        peer_finished_[static_cast<std::size_t>(peer)] = 1;
        finished_changed_.notify_all();
        continue;
      }
      if (std::any_of(pending_.begin(), pending_.end(), [&](const Pending& p) { return p.peer == m->sender; }))
        throw std::runtime_error(from + " while its last question is unanswered");
      const auto threshold = decode_clock(*m);
      const auto now = finished_ ? Barrier::kFinished : clock_;
      if (now >= threshold)
        answer(m->sender, m->tag, now);
      else
        pending_.push_back({m->sender, m->tag, threshold});
    }
  } catch (...) {
    std::lock_guard lock(mutex_);
    service_error_ = std::current_exception();
    finished_changed_.notify_all();
  }
}

void PeerBarrier::rethrow_service_error() {
  std::rethrow_exception(service_error_);
}

std::chrono::nanoseconds PeerBarrier::wait() {
  const auto began = net::Clock::now();
  const std::int64_t clock = this->clock();
  const int n = static_cast<int>(workers_.size());
  const auto need = barrier_.required(clock);
  // The peers to hear from: a global rule reads the slowest, so every other worker.
  std::vector<int> every;
  if (barrier_.global())
    for (int p = 0; p < n; ++p)
      if (p != self_) every.push_back(p);
  barrier_.draw(self_, n, random_, sample_);
  const auto deadline = began + options_.timeout;
  bool held = false;
  // Each round: decide on what is known; if held, ask the looked-at peers behind that have no
  // question here yet, and take one answer. A question outlives the wait that asked it when the
  // rule lets the worker go before every answer (a quorum rule): its answer is taken later.
  for (;;) {
    const ClockList view(known_, self_);
    if (barrier_.decide(clock, sample_, view) == Decision::kAdvance) break;
    held = true;
    bool behind = false;
    for (int p : barrier_.global() ? every : sample_) {
      if (known_[static_cast<std::size_t>(p)] >= need) continue;
      behind = true;
      if (std::any_of(asked_.begin(), asked_.end(), [&](const Question& q) { return q.peer == p; })) continue;
      const auto query = next_query_++;
      inbox_.group().send(workers_[static_cast<std::size_t>(p)], clock_message(kClockQuery, query, need));
      ++queries_sent_;
      asked_.push_back({query, p, need});
    }
    if (!behind) throw barrier_.waits_for_nothing();
    take_answer(deadline);
    if (barrier_.sampling() == Sampling::kPerCheck) barrier_.draw(self_, n, random_, sample_);
  }
  if (held) ++waits_;
  return net::Clock::now() - began;
}

void PeerBarrier::take_answer(net::Clock::time_point deadline) {
  for (;;) {
    auto m = inbox_.receive(
        [&](const net::Message& x) {
          return x.type == kClockAnswer && std::any_of(asked_.begin(), asked_.end(), [&](const Question& q) {
                   return q.query == x.tag && workers_[static_cast<std::size_t>(q.peer)] == x.sender;
                 });
        },
        std::min(deadline, net::Clock::now() + kServePoll));
    {
      std::lock_guard lock(mutex_);
      if (service_error_) rethrow_service_error();
    }
    if (!m) {
      if (net::Clock::now() < deadline) continue;
      std::vector<int> asked;
      for (const auto& q : asked_) asked.push_back(workers_[static_cast<std::size_t>(q.peer)]);
      const auto silent = runtime::silence_of("clock", asked);
      throw runtime::JobFailed(silent.blamed, runtime::FailureCause::kTimeout,
                               "barrier " + barrier_.name() + ": no " + silent.what + " within " +
                                   std::to_string(options_.timeout.count()) + " ms");
    }
    const auto it = std::find_if(asked_.begin(), asked_.end(), [&](const Question& q) { return q.query == m->tag; });
    const auto clock_there = decode_clock(*m);
    if (clock_there < it->threshold)
      throw std::runtime_error("barrier " + barrier_.name() + ": rank " + std::to_string(m->sender) + " answered clock " +
                               std::to_string(clock_there) + " to a question for clock " + std::to_string(it->threshold));
    auto& known = known_[static_cast<std::size_t>(it->peer)];
    known = std::max(known, clock_there);
    asked_.erase(it);
    return;
  }
}

void PeerBarrier::finish() {
  {
    std::lock_guard lock(mutex_);
    if (finished_) return;
    finished_ = true;
    for (const auto& p : pending_) answer(p.peer, p.query, Barrier::kFinished);
    pending_.clear();
  }
  for (std::size_t p = 0; p < workers_.size(); ++p)
    if (static_cast<int>(p) != self_) inbox_.group().send(workers_[p], clock_message(kClockFinished, 0, 0));
  std::unique_lock lock(mutex_);
  const int others = static_cast<int>(workers_.size()) - 1;
  const auto all_finished = [&] { return std::count(peer_finished_.begin(), peer_finished_.end(), 1) == others; };
  if (!finished_changed_.wait_for(lock, options_.timeout, [&] { return all_finished() || service_error_; })) {
    const auto silent = runtime::silence_of("word that it finished", workers_, [&](std::size_t p) {
      return static_cast<int>(p) != self_ && peer_finished_[p] == 0;
    });
    throw runtime::JobFailed(silent.blamed, runtime::FailureCause::kTimeout,
                             "barrier " + barrier_.name() + ": no " + silent.what + " within " +
                                 std::to_string(options_.timeout.count()) + " ms");
  }
  if (service_error_) rethrow_service_error();
  lock.unlock();
  stop_ = true;
  service_.join();
}

}  // namespace gyre::ps
