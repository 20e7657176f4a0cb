// gyre/ps/clocked_store.cpp — folding updates by (step, member), clocks, held reads.
#include "gyre/ps/clocked_store.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace gyre::ps {

ClockedStore::ClockedStore(int members, bool ordered, Fold fold, std::function<Value(Key)> initial, std::size_t value_size,
                           bool count_pushes)
    : ordered_(ordered),
      fold_(std::move(fold)),
      initial_(std::move(initial)),
      value_size_(value_size),
      count_pushes_(count_pushes),
      clocks_(static_cast<std::size_t>(members), 0) {}

Value& ClockedStore::at(Key key) {
  auto it = values_.find(key);
  if (it == values_.end()) {
    Value v = initial_ ? initial_(key) : Value(value_size_, 0.0);
    if (v.size() != value_size_)
      throw std::logic_error("the initial value of key " + std::to_string(key) + " has " + std::to_string(v.size()) +
                             " doubles, not " + std::to_string(value_size_));
    it = values_.emplace(key, std::move(v)).first;
  }
  return it->second;
}

void ClockedStore::fold(ClockedUpdate& u) {
  Value& v = at(u.key);
  if (u.set) {
    v = std::move(u.value);
    return;
  }
  if (fold_)
    fold_(u.key, v, u.value);
  else
    for (std::size_t i = 0; i < v.size(); ++i) v[i] += u.value[i];
  if (count_pushes_) ++pushes_folded_[u.key];
}

void ClockedStore::take(ClockedUpdate u) {
  if (ordered_ && u.step_end > slowest())
    pending_[{u.step_end, u.member}].push_back(std::move(u));
  else
    fold(u);
}

int ClockedStore::slowest_member() const {
  return static_cast<int>(std::min_element(clocks_.begin(), clocks_.end()) - clocks_.begin());
}

void ClockedStore::advance(int member, std::int64_t clock) {
  clocks_[static_cast<std::size_t>(member)] = clock;
  slowest_ = *std::min_element(clocks_.begin(), clocks_.end());
  auto it = pending_.begin();
  for (; it != pending_.end() && it->first.first <= slowest_; ++it)
    for (ClockedUpdate& u : it->second) fold(u);
  pending_.erase(pending_.begin(), it);
}

void ClockedStore::hold(HeldRead r) {
  ++held_reads_;
  waiting_.push_back(std::move(r));
}

std::vector<HeldRead> ClockedStore::take_due_reads() {
  std::vector<HeldRead> due;
  std::erase_if(waiting_, [&](HeldRead& r) {
    if (r.clock > slowest_) return false;
    due.push_back(std::move(r));
    return true;
  });
  return due;
}

}  // namespace gyre::ps
