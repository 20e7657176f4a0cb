// gyre/ps/table_rules.hpp — which barrier rule bounds a read of a key: its table's (Bösen's per-table staleness), else the job's.
#pragma once

#include <cstdint>
#include <vector>

#include "gyre/ps/barrier.hpp"
#include "gyre/ps/ps_job.hpp"

namespace gyre::ps {

// A worker's answer to "how fresh must this key's value be": the rule of the table the key
// lies in, or the job's rule for keys in no table. A rule that bounds staleness (BSP, SSP:
// Barrier::global()) makes a read of a worker at clock c wait until every worker's pushes of
// the steps up to required(c) are in; a rule that does not (ASP, pBSP, pSSP) bounds no read.
class TableRules {
 public:
  // Throws std::invalid_argument naming the table when one is empty, reaches past `keys` or
  // overlaps another.
  TableRules(Barrier job, std::vector<Table> tables, Key keys);

  const Barrier& of(Key key) const;
  // The clock every worker's pushes must have reached for a read of `key` by a worker at
  // `clock`; the lowest clock there is when its rule bounds no read.
  std::int64_t needed(Key key, std::int64_t clock) const;
  // How many steps old a cached value of `key` may be at `clock`: the rule's staleness, or
  // `unbounded` (the cache's own limit) when the rule bounds no read.
  std::int64_t cache_bound(Key key, std::int64_t clock, std::int64_t unbounded) const;
  // Whether any rule bounds reads: then every holder of keys must hear of every step.
  bool any_global() const noexcept { return any_global_; }

 private:
  Barrier job_;
  std::vector<Table> tables_;  // by first key
  bool any_global_ = false;
};

}  // namespace gyre::ps
