// gyre/data/id_space.cpp — dense renumbering of ids by a presence bitmap, or by sorting when the ids are very sparse.
#include "gyre/data/id_space.hpp"

#include <algorithm>

namespace gyre::data {
namespace {

// The ids that `each_id` visits, ascending and distinct. A bitmap over 0..max costs max/8
// bytes; it is used while that stays within a few bytes per occurrence, else the ids are sorted.
template <class EachId>
IdTable table_of(const EachId& each_id) {
  std::uint64_t count = 0;
  std::uint32_t largest = 0;
  each_id([&](std::uint32_t id) {
    ++count;
    largest = std::max(largest, id);
  });
  IdTable table;
  auto& out = table.original;
  if (count == 0) return table;
  if (std::uint64_t{largest} <= 32 * count + (1u << 20)) {
    std::vector<std::uint64_t> seen(std::uint64_t{largest} / 64 + 1, 0);
    each_id([&](std::uint32_t id) { seen[id / 64] |= std::uint64_t{1} << (id % 64); });
    for (std::size_t w = 0; w < seen.size(); ++w)
      for (std::uint64_t bits = seen[w]; bits != 0; bits &= bits - 1)
        out.push_back(static_cast<std::uint32_t>(w * 64 + static_cast<std::size_t>(__builtin_ctzll(bits))));
    return table;
  }
  out.reserve(count);
  each_id([&](std::uint32_t id) { out.push_back(id); });
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  out.shrink_to_fit();
  return table;
}

std::uint32_t dense_id(const IdTable& table, std::uint32_t id) {
  return static_cast<std::uint32_t>(std::lower_bound(table.original.begin(), table.original.end(), id) -
                                    table.original.begin());
}

IdTable renumber(std::span<RatingsSet* const> sets, std::uint32_t Rating::*field, const IdTable* also = nullptr) {
  IdTable table = table_of([&](const auto& visit) {
    for (const RatingsSet* s : sets)
      for (const Rating& r : s->ratings) visit(r.*field);
    if (also)
      for (const std::uint32_t id : also->original) visit(id);
  });
  if (!table.identity())
    for (RatingsSet* s : sets)
      for (Rating& r : s->ratings) r.*field = dense_id(table, r.*field);
  return table;
}

}  // namespace

std::vector<std::uint32_t> distinct_ids(std::span<const Rating> ratings, std::uint32_t Rating::*field) {
  return table_of([&](const auto& visit) {
           for (const Rating& r : ratings) visit(r.*field);
         }).original;
}

bool IdTable::identity() const { return original.empty() || original.back() == original.size() - 1; }

IdTables compact_ids(std::span<RatingsSet* const> sets) { return compact_ids(sets, IdTables{}); }

IdTables compact_ids(std::span<RatingsSet* const> sets, const IdTables& also) {
  IdTables tables{renumber(sets, &Rating::user, &also.users), renumber(sets, &Rating::item, &also.items)};
  for (RatingsSet* s : sets) {
    s->users = tables.users.size();
    s->items = tables.items.size();
  }
  return tables;
}

namespace {

// `known` and the ids of `extra`'s `field`, ascending; `extra` renumbered into them.
IdTable join_table(const IdTable& known, RatingsSet& extra, std::uint32_t Rating::*field,
                   std::vector<std::uint32_t>& from_known) {
  IdTable joined = table_of([&](const auto& visit) {
    for (const std::uint32_t id : known.original) visit(id);
    for (const Rating& r : extra.ratings) visit(r.*field);
  });
  for (Rating& r : extra.ratings) r.*field = dense_id(joined, r.*field);
  from_known.resize(known.size());
  for (std::uint32_t d = 0, j = 0; d < known.size(); ++d) {  // both ascending: one merge pass
    while (joined.original[j] != known.original[d]) ++j;
    from_known[d] = j;
  }
  return joined;
}

}  // namespace

JoinedIds join_ids(const IdTables& known, RatingsSet& extra) {
  JoinedIds out;
  out.tables.users = join_table(known.users, extra, &Rating::user, out.users_from_known);
  out.tables.items = join_table(known.items, extra, &Rating::item, out.items_from_known);
  extra.users = out.tables.users.size();
  extra.items = out.tables.items.size();
  return out;
}

void restore_ids(RatingsSet& set, const IdTables& tables) {
  for (Rating& r : set.ratings) {
    r.user = tables.users.original.at(r.user);
    r.item = tables.items.original.at(r.item);
  }
}

IdTable compact_features(std::span<RegressionSet* const> sets) {
  IdTable table = table_of([&](const auto& visit) {
    for (const RegressionSet* s : sets)
      for (const std::uint32_t c : s->cols) visit(c);
  });
  for (RegressionSet* s : sets) renumber_features(*s, table);
  return table;
}

void renumber_features(RegressionSet& set, const IdTable& table) {
  if (!table.identity())
    for (std::uint32_t& c : set.cols) c = dense_id(table, c);  // monotonic: rows stay increasing
  if (!set.feature_names.empty()) {
    std::vector<std::string> names;
    names.reserve(table.size());
    for (const std::uint32_t j : table.original)
      names.push_back(j < set.feature_names.size() ? std::move(set.feature_names[j]) : std::string());
    set.feature_names = std::move(names);
  }
  set.features = table.size();
}

}  // namespace gyre::data
