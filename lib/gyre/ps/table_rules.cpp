// gyre/ps/table_rules.cpp — which barrier rule bounds a read of a key.
#include "gyre/ps/table_rules.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>

namespace gyre::ps {

TableRules::TableRules(Barrier job, std::vector<Table> tables, Key keys) : job_(std::move(job)), tables_(std::move(tables)) {
  std::sort(tables_.begin(), tables_.end(), [](const Table& a, const Table& b) { return a.first < b.first; });
  for (std::size_t i = 0; i < tables_.size(); ++i) {
    const Table& t = tables_[i];
    const std::string name = "table \"" + t.name + "\"";
    if (t.count == 0) throw std::invalid_argument(name + " holds no keys");
    if (t.first >= keys || t.count > keys - t.first)
      throw std::invalid_argument(name + " (keys " + std::to_string(t.first) + " … " + std::to_string(t.first + t.count - 1) +
                                  ") reaches past the model's " + std::to_string(keys) + " keys");
    if (i > 0 && tables_[i - 1].first + tables_[i - 1].count > t.first)
      throw std::invalid_argument(name + " overlaps table \"" + tables_[i - 1].name + "\"");
  }
  any_global_ = job_.global() || std::any_of(tables_.begin(), tables_.end(), [](const Table& t) { return t.barrier.global(); });
}

const Barrier& TableRules::of(Key key) const {
  // The last table starting at or before `key`, if `key` lies in it.
  auto it = std::upper_bound(tables_.begin(), tables_.end(), key, [](Key k, const Table& t) { return k < t.first; });
  if (it == tables_.begin()) return job_;
  --it;
  return key - it->first < it->count ? it->barrier : job_;
}

std::int64_t TableRules::needed(Key key, std::int64_t clock) const {
  const Barrier& rule = of(key);
  return rule.global() ? rule.required(clock) : std::numeric_limits<std::int64_t>::min();
}

std::int64_t TableRules::cache_bound(Key key, std::int64_t clock, std::int64_t unbounded) const {
  const Barrier& rule = of(key);
  return rule.global() ? clock - rule.required(clock) : unbounded;
}

}  // namespace gyre::ps
