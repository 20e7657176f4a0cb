// gyre/data/id_space.cpp — dense renumbering of ids by a presence bitmap, or by sorting when the ids are very sparse.
#include "gyre/data/id_space.hpp"

#include <algorithm>

namespace gyre::data {
namespace {

// The ids that occur, ascending. A bitmap over 0..max costs max/8 bytes; it is used while that
// stays within a few bytes per rating, else the ids are sorted.
std::vector<std::uint32_t> distinct(std::span<RatingsSet* const> sets, std::uint32_t Rating::*field) {
  std::uint64_t count = 0;
  std::uint32_t largest = 0;
  for (const RatingsSet* s : sets) {
    count += s->ratings.size();
    for (const Rating& r : s->ratings) largest = std::max(largest, r.*field);
  }
  std::vector<std::uint32_t> out;
  if (count == 0) return out;
  if (std::uint64_t{largest} <= 32 * count + (1u << 20)) {
    std::vector<std::uint64_t> seen(std::uint64_t{largest} / 64 + 1, 0);
    for (const RatingsSet* s : sets)
      for (const Rating& r : s->ratings) seen[r.*field / 64] |= std::uint64_t{1} << (r.*field % 64);
    for (std::size_t w = 0; w < seen.size(); ++w)
      for (std::uint64_t bits = seen[w]; bits != 0; bits &= bits - 1)
        out.push_back(static_cast<std::uint32_t>(w * 64 + static_cast<std::size_t>(__builtin_ctzll(bits))));
    return out;
  }
  out.reserve(count);
  for (const RatingsSet* s : sets)
    for (const Rating& r : s->ratings) out.push_back(r.*field);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  out.shrink_to_fit();
  return out;
}

IdTable renumber(std::span<RatingsSet* const> sets, std::uint32_t Rating::*field) {
  IdTable table{distinct(sets, field)};
  if (!table.identity())
    for (RatingsSet* s : sets)
      for (Rating& r : s->ratings)
        r.*field = static_cast<std::uint32_t>(
            std::lower_bound(table.original.begin(), table.original.end(), r.*field) - table.original.begin());
  return table;
}

}  // namespace

bool IdTable::identity() const { return original.empty() || original.back() == original.size() - 1; }

IdTables compact_ids(std::span<RatingsSet* const> sets) {
  IdTables tables{renumber(sets, &Rating::user), renumber(sets, &Rating::item)};
  for (RatingsSet* s : sets) {
    s->users = tables.users.size();
    s->items = tables.items.size();
  }
  return tables;
}

void restore_ids(RatingsSet& set, const IdTables& tables) {
  for (Rating& r : set.ratings) {
    r.user = tables.users.original.at(r.user);
    r.item = tables.items.original.at(r.item);
  }
}

}  // namespace gyre::data
