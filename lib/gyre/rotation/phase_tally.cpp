// gyre/rotation/phase_tally.cpp — phases summed as workers finish them, in rank order, without a barrier.
#include "gyre/rotation/phase_tally.hpp"

#include <algorithm>
#include <deque>
#include <optional>
#include <string>

namespace gyre::rotation {

PhaseTally::PhaseTally(runtime::Mailbox& mailbox, std::vector<int> workers, std::chrono::milliseconds timeout)
    : workers_(std::move(workers)), receiver_(mailbox, "scheduler", timeout, workers_, runtime::Receiver::Role::kHub) {}

void PhaseTally::run(const PhasePolicy& policy) {
  auto& group = receiver_.group();

  // Phase `first + i`'s reports, by worker index: a worker that runs ahead adds phases at the
  // back, one at a time and in order, so the window is as long as the lead of the fastest worker.
  std::deque<std::vector<std::optional<PhaseSums>>> pending;
  std::uint64_t first = 0;
  std::vector<std::uint64_t> next(workers_.size(), 0);  // the phase each worker reports next
  auto last_done = net::Clock::now();
  auto kind = ask_policy(policy, nullptr, group, workers_);
  const auto behind = [&] {
    return runtime::silence_of("report of phase " + std::to_string(first), workers_,
                               [&](std::size_t i) { return next[i] == first; });
  };
  while (kind) {
    const auto m = receiver_.receive([](const net::Message& x) { return x.type == kPhaseDone; }, behind);
    const int from = m.sender;
    const auto bad = runtime::FailureCause::kBadMessage;
    const auto it = std::find(workers_.begin(), workers_.end(), from);
    if (it == workers_.end()) receiver_.fail(from, bad, "rank " + std::to_string(from) + ", not a worker, reported a phase");
    const auto w = static_cast<std::size_t>(it - workers_.begin());
    PhaseDone done;
    try {
      done = decode_phase_done(m, next[w]);  // each worker's phases in order, none twice
    } catch (const std::runtime_error& e) {
      receiver_.fail(from, bad, e.what());
    }
    ++next[w];
    while (pending.size() <= done.phase - first) pending.emplace_back(workers_.size());
    pending[done.phase - first][w] = done.sums;

    while (kind && !pending.empty() &&
           std::all_of(pending.front().begin(), pending.front().end(), [](const auto& s) { return s.has_value(); })) {
      PhaseResult result;
      result.phase = first;
      result.kind = *kind;
      for (std::size_t i = 0; i < pending.front().size(); ++i) try {  // in rank order: reproducible sums
          add_phase_sums(result.sums, i == 0, *pending.front()[i], workers_[i], first);
        } catch (const std::runtime_error& e) {
          receiver_.fail(workers_[i], bad, e.what());
        }
      const auto now = net::Clock::now();
      result.seconds = std::chrono::duration<double>(now - last_done).count();
      last_done = now;
      pending.pop_front();
      ++first;
      kind = ask_policy(policy, &result, group, workers_);
    }
  }
}

}  // namespace gyre::rotation
