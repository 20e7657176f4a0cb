// scheduler/phase_tally.cpp — phases summed as workers finish them, in rank order, without a barrier.
#include "gyre/scheduler/phase_tally.hpp"

#include <algorithm>
#include <deque>
#include <optional>
#include <string>

namespace gyre::scheduler {

PhaseTally::PhaseTally(runtime::Mailbox& mailbox, std::vector<int> workers, std::chrono::milliseconds timeout)
    : mailbox_(mailbox), workers_(std::move(workers)), timeout_(timeout) {}

void PhaseTally::fail(int rank, runtime::FailureCause cause, const std::string& why) {
  runtime::fail_job(mailbox_.group(), workers_, runtime::JobFailed(rank, cause, "scheduler: " + why));
}

void PhaseTally::run(const PhasePolicy& policy) {
  auto& group = mailbox_.group();

  // Phase `first + i`'s reports, by worker index: a worker that runs ahead adds phases at the
  // back, one at a time and in order, so the window is as long as the lead of the fastest worker.
  std::deque<std::vector<std::optional<PhaseSums>>> pending;
  std::uint64_t first = 0;
  std::vector<std::uint64_t> next(workers_.size(), 0);  // the phase each worker reports next
  auto last_done = net::Clock::now();
  auto kind = ask_policy(policy, nullptr, group, workers_);
  while (kind) {
    std::optional<net::Message> m;
    try {
      m = mailbox_.receive([](const net::Message& x) { return x.type == kPhaseDone; }, net::Clock::now() + timeout_);
    } catch (const runtime::JobFailed& e) {
      runtime::fail_job(group, workers_, e);  // a worker's notice: pass it on to the others
    } catch (const net::GroupClosed& e) {
      fail(-1, runtime::FailureCause::kPeerLost, std::string("transport closed: ") + e.what());
    }
    if (!m) {
      std::string behind;
      int first_behind = -1;
      for (std::size_t i = 0; i < workers_.size(); ++i)
        if (next[i] == first) {
          behind += (behind.empty() ? "" : ",") + std::to_string(workers_[i]);
          if (first_behind < 0) first_behind = workers_[i];
        }
      fail(first_behind, runtime::FailureCause::kTimeout,
           "no report of phase " + std::to_string(first) + " from rank(s) " + behind + " within " +
               std::to_string(timeout_.count()) + " ms");
    }
    const int from = m->sender;
    const auto bad = runtime::FailureCause::kBadMessage;
    const auto it = std::find(workers_.begin(), workers_.end(), from);
    if (it == workers_.end()) fail(from, bad, "rank " + std::to_string(from) + ", not a worker, reported a phase");
    const auto w = static_cast<std::size_t>(it - workers_.begin());
    PhaseDone done;
    try {
      done = decode_phase_done(*m, next[w]);  // each worker's phases in order, none twice
    } catch (const std::runtime_error& e) {
      fail(from, bad, e.what());
    }
    ++next[w];
    while (pending.size() <= done.phase - first) pending.emplace_back(workers_.size());
    pending[done.phase - first][w] = done.sums;

    while (kind && !pending.empty() &&
           std::all_of(pending.front().begin(), pending.front().end(), [](const auto& s) { return s.has_value(); })) {
      PhaseResult result;
      result.phase = first;
      result.kind = *kind;
      for (const auto& s : pending.front())  // in rank order: reproducible sums
        for (std::size_t i = 0; i < kPhaseSums; ++i) result.sums[i] += (*s)[i];
      const auto now = net::Clock::now();
      result.seconds = std::chrono::duration<double>(now - last_done).count();
      last_done = now;
      pending.pop_front();
      ++first;
      kind = ask_policy(policy, &result, group, workers_);
    }
  }
}

}  // namespace gyre::scheduler
