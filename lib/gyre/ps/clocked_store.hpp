// gyre/ps/clocked_store.hpp — the keys a parameter server or a peer's owner holds, with every member's clock: updates folded in (step, member) order once due, reads held until their clock.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <utility>
#include <vector>

#include "gyre/ps/ps_job.hpp"

namespace gyre::ps {

// An update of one key, in the step of `member` that ends at clock `step_end`.
struct ClockedUpdate {
  std::int64_t step_end;
  int member;
  bool set;  // replaces the value; otherwise folded in (a push)
  Key key;
  Value value;
};

// A read of `keys` that needs every member's updates up to `clock`.
struct HeldRead {
  int member;
  std::uint64_t request;
  std::int64_t clock;
  std::vector<Key> keys;
};

// What a parameter-server shard and a peer-to-peer owner share. Each member's clock is the step
// its updates have reached; the slowest member's is the store's. When `ordered`, an update is
// kept until every member has ended its step, then folded in (step, member) order, and within
// one member's step in the order taken: the stored values are a function of the steps alone,
// whatever order the messages arrived in, so a BSP run repeats bit for bit. Otherwise updates are
// folded in as they come. Not thread-safe: the owner of a store serialises its calls.
class ClockedStore {
 public:
  // `fold` empty: a push is added; `initial` empty: a key starts at `value_size` zeros.
  // `count_pushes`: keep pushes_folded() (a map update per push, which a server's loop is spared).
  ClockedStore(int members, bool ordered, Fold fold, std::function<Value(Key)> initial, std::size_t value_size,
               bool count_pushes = false);

  // The stored value of `key`, made from `initial` on first use (std::logic_error if that
  // value has the wrong size).
  Value& at(Key key);
  bool holds(Key key) const { return values_.contains(key); }
  const std::map<Key, Value>& values() const noexcept { return values_; }
  // Per key: how many pushes (not sets) have been folded in; empty unless count_pushes.
  const std::map<Key, std::uint64_t>& pushes_folded() const noexcept { return pushes_folded_; }

  // Folded now, or kept until its step is due (when ordered).
  void take(ClockedUpdate u);
  // `member` has reached `clock` (Barrier::kFinished: it will send no more); folds what is now due.
  void advance(int member, std::int64_t clock);
  std::int64_t clock_of(int member) const { return clocks_[static_cast<std::size_t>(member)]; }
  std::int64_t slowest() const noexcept { return slowest_; }
  // The member whose clock is lowest (the first of them).
  int slowest_member() const;

  // Held until every member has reached r.clock; counted in held_reads().
  void hold(HeldRead r);
  // The held reads that are now due, taken out in the order they were held.
  std::vector<HeldRead> take_due_reads();
  std::uint64_t held_reads() const noexcept { return held_reads_; }

 private:
  void fold(ClockedUpdate& u);  // a set's value is moved into the store

  bool ordered_;
  Fold fold_;
  std::function<Value(Key)> initial_;
  std::size_t value_size_;
  bool count_pushes_;
  std::map<Key, Value> values_;
  std::map<Key, std::uint64_t> pushes_folded_;
  std::vector<std::int64_t> clocks_;
  std::int64_t slowest_ = 0;  // the lowest of clocks_, kept as they move: take() and every read ask for it
  std::map<std::pair<std::int64_t, int>, std::vector<ClockedUpdate>> pending_;  // by (step end, member)
  std::vector<HeldRead> waiting_;
  std::uint64_t held_reads_ = 0;
};

}  // namespace gyre::ps
