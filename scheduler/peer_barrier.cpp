// gyre/scheduler/peer_barrier.cpp — clock questions and answers between workers, and the wait built on them.
#include "gyre/scheduler/peer_barrier.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "gyre/base/random.hpp"
#include "gyre/wire/body.hpp"

namespace gyre::scheduler {
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

PeerBarrier::PeerBarrier(runtime::Mailbox& inbox, std::vector<int> workers, BarrierSpec spec, PeerBarrierOptions options)
    : inbox_(inbox), workers_(std::move(workers)), barrier_(spec), options_(options),
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
  barrier_.draw(self_, n, random_, sample_);
  if (barrier_.global()) {
    sample_.clear();
    for (int p = 0; p < n; ++p)
      if (p != self_) sample_.push_back(p);
  }
  const auto need = barrier_.required(clock);
  // Ask only the peers not already known to be far enough.
  std::vector<std::pair<std::uint64_t, int>> asked;  // (query, peer index)
  for (int p : sample_) {
    if (known_[static_cast<std::size_t>(p)] >= need) continue;
    const auto query = next_query_++;
    inbox_.group().send(workers_[static_cast<std::size_t>(p)], clock_message(kClockQuery, query, need));
    ++queries_sent_;
    asked.emplace_back(query, p);
  }
  if (!asked.empty()) ++waits_;
  const auto deadline = net::Clock::now() + options_.timeout;
  while (!asked.empty()) {
    auto m = inbox_.receive(
        [&](const net::Message& x) {
          return x.type == kClockAnswer && std::any_of(asked.begin(), asked.end(), [&](const auto& a) {
                   return a.first == x.tag && workers_[static_cast<std::size_t>(a.second)] == x.sender;
                 });
        },
        std::min(deadline, net::Clock::now() + kServePoll));
    {
      std::lock_guard lock(mutex_);
      if (service_error_) rethrow_service_error();
    }
    if (!m) {
      if (net::Clock::now() < deadline) continue;
      std::string silent;
      for (const auto& a : asked) silent += (silent.empty() ? "" : ", ") + std::to_string(workers_[static_cast<std::size_t>(a.second)]);
      throw std::runtime_error("barrier " + barrier_.spec().name() + ": no clock from rank(s) " + silent + " within " +
                               std::to_string(options_.timeout.count()) + " ms");
    }
    const auto it = std::find_if(asked.begin(), asked.end(), [&](const auto& a) { return a.first == m->tag; });
    const auto clock_there = decode_clock(*m);
    if (clock_there < need)
      throw std::runtime_error("barrier " + barrier_.spec().name() + ": rank " + std::to_string(m->sender) +
                               " answered clock " + std::to_string(clock_there) + " to a question for clock " +
                               std::to_string(need));
    auto& known = known_[static_cast<std::size_t>(it->second)];
    known = std::max(known, clock_there);
    asked.erase(it);
  }
  const ClockList view(known_, self_);
  if (barrier_.decide(clock, sample_, view) != Decision::kAdvance)
    throw std::logic_error("peer barrier: every asked peer answered yet the barrier says wait");
  return net::Clock::now() - began;
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
  if (!finished_changed_.wait_for(lock, options_.timeout, [&] { return all_finished() || service_error_; }))
    throw std::runtime_error("barrier " + barrier_.spec().name() + ": peers did not finish within " +
                             std::to_string(options_.timeout.count()) + " ms");
  if (service_error_) rethrow_service_error();
  lock.unlock();
  stop_ = true;
  service_.join();
}

}  // namespace gyre::scheduler
