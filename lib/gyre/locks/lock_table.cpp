// gyre/locks/lock_table.cpp — all-or-nothing grants with first-come reservations.
#include "gyre/locks/lock_table.hpp"

#include <algorithm>
#include <map>
#include <stdexcept>

#include "gyre/base/rank_text.hpp"

namespace gyre::locks {

LockTable::LockTable(std::uint32_t keys)
    : holder_(keys, kFree), since_(keys), reserved_(keys, 0) {
  if (keys == 0) throw std::invalid_argument("a lock table needs at least one key");
}

void LockTable::check_keys(int rank, std::span<const LockKey> keys, const char* what) const {
  if (keys.empty()) throw std::invalid_argument(rank_text(rank) + " " + what + " no keys");
  std::vector<LockKey> sorted(keys.begin(), keys.end());
  std::sort(sorted.begin(), sorted.end());
  if (sorted.back() >= this->keys())
    throw std::invalid_argument(rank_text(rank) + " " + what + " key " + std::to_string(sorted.back()) +
                                ", outside [0, " + std::to_string(this->keys()) + ")");
  const auto twice = std::adjacent_find(sorted.begin(), sorted.end());
  if (twice != sorted.end())
    throw std::invalid_argument(rank_text(rank) + " " + what + " key " + std::to_string(*twice) + " twice");
}

void LockTable::check(const Request& r) const {
  if (waiting(r.rank))
    throw std::invalid_argument(rank_text(r.rank) + " sent request " + std::to_string(r.id) +
                                " while an earlier one of its requests was still waiting");
  check_keys(r.rank, r.keys, "asked for");
  if (r.mode == LockMode::kAny) {
    if (r.count == 0 || r.count > r.keys.size())
      throw std::invalid_argument(rank_text(r.rank) + " asked for " + std::to_string(r.count) + " of " +
                                  std::to_string(r.keys.size()) + " candidates");
    return;
  }
  // Waiting for a key one already holds would never end.
  for (LockKey k : r.keys)
    if (holder_[k] == r.rank)
      throw std::invalid_argument(rank_text(r.rank) + " asked for key " + std::to_string(k) +
                                  ", which it already holds");
}

std::vector<LockKey> LockTable::grantable(const Request& r) const {
  auto available = [&](LockKey k) { return holder_[k] == kFree && reserved_[k] == 0; };
  if (r.mode == LockMode::kAll) {
    if (std::all_of(r.keys.begin(), r.keys.end(), available)) return r.keys;
    return {};
  }
  std::vector<LockKey> chosen;
  for (LockKey k : r.keys) {
    if (!available(k)) continue;
    chosen.push_back(k);
    if (chosen.size() == r.count) return chosen;
  }
  return {};
}

void LockTable::take(int rank, const std::vector<LockKey>& keys, Clock::time_point now) {
  for (LockKey k : keys) {
    holder_[k] = rank;
    since_[k] = now;
    holds_.emplace(now, k);
  }
}

std::vector<LockTable::Answer> LockTable::serve(Clock::time_point now) {
  std::vector<Answer> answers;
  std::vector<LockKey> touched;
  for (auto it = queue_.begin(); it != queue_.end();) {
    std::vector<LockKey> keys = grantable(*it);
    if (!keys.empty()) {
      take(it->rank, keys, now);
      ++stats_.grants;
      answers.push_back({it->rank, it->id, std::move(keys)});
      it = queue_.erase(it);
    } else if (it->wait == LockWait::kNoWait) {
      ++stats_.refusals;
      answers.push_back({it->rank, it->id, {}});
      it = queue_.erase(it);
    } else {
      if (it->mode == LockMode::kAll)
        for (LockKey k : it->keys) {
          reserved_[k] = 1;
          touched.push_back(k);
        }
      ++it;
    }
  }
  for (LockKey k : touched) reserved_[k] = 0;
  stats_.waiting = queue_.size();
  return answers;
}

std::vector<LockTable::Answer> LockTable::submit(Request request, Clock::time_point now) {
  check(request);
  if (request.mode == LockMode::kAll) request.count = static_cast<std::uint32_t>(request.keys.size());
  const int rank = request.rank;
  const bool waits = request.wait == LockWait::kUntilFree;
  // Behind every waiter, so that the reservations of earlier requests apply to it.
  queue_.push_back(std::move(request));
  auto answers = serve(now);
  if (waits && this->waiting(rank)) {
    ++stats_.waits;
    stats_.max_queue = std::max(stats_.max_queue, queue_.size());
  }
  return answers;
}

std::vector<LockTable::Answer> LockTable::release(int rank, std::span<const LockKey> keys, Clock::time_point now) {
  check_keys(rank, keys, "released");
  for (LockKey k : keys)
    if (holder_[k] != rank)
      throw std::invalid_argument(rank_text(rank) + " released key " + std::to_string(k) + ", which " +
                                  (holder_[k] == kFree ? std::string("nobody holds")
                                                       : "is held by " + rank_text(holder_[k])));
  for (LockKey k : keys) {
    holder_[k] = kFree;
    holds_.erase({since_[k], k});
  }
  return serve(now);
}

std::vector<int> LockTable::drop_waiting() {
  std::vector<int> ranks;
  for (const Request& r : queue_) ranks.push_back(r.rank);
  queue_.clear();
  stats_.waiting = 0;
  return ranks;
}

std::optional<int> LockTable::holder(LockKey key) const {
  if (key >= keys() || holder_[key] == kFree) return std::nullopt;
  return holder_[key];
}

std::vector<LockKey> LockTable::held_by(int rank) const {
  std::vector<LockKey> out;
  for (LockKey k = 0; k < keys(); ++k)
    if (holder_[k] == rank) out.push_back(k);
  return out;
}

bool LockTable::waiting(int rank) const {
  return std::any_of(queue_.begin(), queue_.end(), [&](const Request& r) { return r.rank == rank; });
}

std::optional<LockTable::Hold> LockTable::oldest_hold() const {
  if (holds_.empty()) return std::nullopt;
  const auto& [since, key] = *holds_.begin();
  return Hold{holder_[key], key, since};
}

std::string LockTable::describe_holders() const {
  std::map<int, std::vector<LockKey>> by_rank;
  for (LockKey k = 0; k < keys(); ++k)
    if (holder_[k] != kFree) by_rank[holder_[k]].push_back(k);
  if (by_rank.empty()) return "no key was held";
  std::string out;
  for (const auto& [rank, held] : by_rank)
    out += (out.empty() ? "" : ", ") + rank_text(rank) + " held " + key_list(held);
  return out;
}

LockStats LockTable::stats() const { return stats_; }

}  // namespace gyre::locks
