// gyre/data/id_space.hpp — ids (users, items, feature columns) renumbered densely, so memory follows the data and not the largest id.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "gyre/data/ratings.hpp"
#include "gyre/data/regression.hpp"

namespace gyre::data {

// The original id of every dense id, ascending: dense id d stands for original[d]. Renumbering
// keeps the order of ids, so anything ordered by id (output files, tie-breaks) stays the same.
struct IdTable {
  std::vector<std::uint32_t> original;
  std::uint32_t size() const { return static_cast<std::uint32_t>(original.size()); }
  bool identity() const;  // every id 0..size-1 was present: nothing was renumbered
};

struct IdTables {
  IdTable users;
  IdTable items;
};

// Renumbers the users and the items of all `sets` together (a job's training shards and its
// test set share one id space) to 0..n-1 over the ids that occur, and sets each set's users and
// items to those counts. One rating with user id 10^9 then costs one factor row, not 10^9.
// Time O(ratings + largest id / 32) when the ids are not much sparser than the data, else a
// sort; a file whose ids are already dense 0..n-1 comes back unchanged.
IdTables compact_ids(std::span<RatingsSet* const> sets);
// The same over the ids of `sets` and the original ids listed in `also` (ascending or not): for
// a process that holds some of a job's ratings and has been told the ids of the others.
IdTables compact_ids(std::span<RatingsSet* const> sets, const IdTables& also);

// The distinct values of `field` in `ratings`, ascending: by a presence bitmap as compact_ids
// numbers them (a sort only for very sparse ids). What a process of a job tells the others of
// the ids it holds.
std::vector<std::uint32_t> distinct_ids(std::span<const Rating> ratings, std::uint32_t Rating::*field);

// The same for the feature columns of regression sets (a training set and its evaluation set
// together): columns no sample uses are dropped, feature names follow their columns, and
// `features` becomes the number of columns used. A LibSVM line with index 10^7 then costs one
// column. Returns the original column of every dense one.
IdTable compact_features(std::span<RegressionSet* const> sets);
// The same renumbering by a table compact_features made (over sets that held these rows): for
// a process that holds one shard of the rows and is told the table.
void renumber_features(RegressionSet& set, const IdTable& table);

// A partition's dense id space (`known`: the original id of each dense id, ascending) joined by
// the ids `extra` uses (a test set read beside one shard), numbered as compact_ids over the
// partition's ratings and `extra` together numbers them. `extra` is renumbered into the joined
// space (its users and items set to the joined sizes); `*_from_known[d]` is the joined id of known
// dense id d, to renumber the partition's shard and statistics with.
struct JoinedIds {
  IdTables tables;
  std::vector<std::uint32_t> users_from_known;
  std::vector<std::uint32_t> items_from_known;
};
JoinedIds join_ids(const IdTables& known, RatingsSet& extra);

// The inverse: puts the original ids back (for writing shards that keep the input's ids); the
// set's users and items, the bounds of its id space, are the caller's to set.
void restore_ids(RatingsSet& set, const IdTables& tables);

}  // namespace gyre::data
