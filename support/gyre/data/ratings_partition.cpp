// gyre/data/ratings_partition.cpp — ratings partition directories: shards, the dense ids' originals and the plan's statistics, written and checked.
#include "gyre/data/ratings_partition.hpp"

#include <cstdio>
#include <stdexcept>
#include <string>

#include "gyre/base/input_error.hpp"
#include "gyre/data/manifest.hpp"
#include "gyre/data/number_lines.hpp"
#include "gyre/data/partition_files.hpp"

namespace gyre::data {
namespace {

namespace fs = std::filesystem;

constexpr const char* kUsersName = "users.txt";
constexpr const char* kItemsName = "items.txt";

std::string exact(double x) {
  char text[32];
  std::snprintf(text, sizeof text, "%.17g", x);
  return text;
}

std::string id_space(std::uint32_t users, std::uint32_t items) {
  return std::to_string(users) + "x" + std::to_string(items);
}

void write_shards(const fs::path& dir, const std::vector<RatingsSet>& shards, Manifest& m) {
  if (shards.empty()) throw std::invalid_argument("write_ratings_partition: no shards");
  for (const RatingsSet& s : shards)
    if (s.users != shards.front().users || s.items != shards.front().items)
      throw std::invalid_argument("write_ratings_partition: shards disagree on the id space");
  m.users = shards.front().users;
  m.items = shards.front().items;
  write_listed_shards(dir, std::span(shards), m);
}

RatingsSet read_ratings_shard(const fs::path& dir, const Manifest& m, const ShardEntry& e) {
  RatingsSet s = read_listed_file<RatingsSet>(dir, e);
  if (s.users != m.users || s.items != m.items)
    throw InputError(dir / e.file, 0, "id space " + id_space(m.users, m.items) + kAsListed, id_space(s.users, s.items));
  return s;
}

// One "original_id value" line per dense id of `count`, original ids ascending; `check_value`
// vets each value (throwing at the line).
template <typename CheckValue>
void read_id_lines(const fs::path& file, std::uint32_t count, const char* what, const char* one_per, IdTable& table,
                   CheckValue&& check_value) {
  table.original.assign(count, 0);
  read_number_lines<2>(file, count, what, std::string(", one per ") + one_per + "," + kAsListed,
                       [&](std::size_t d, const auto& v, std::size_t line) {
                         if (v[0] > kMaxId)
                           throw InputError(file, line, "an original id at most " + std::to_string(kMaxId),
                                            std::to_string(v[0]));
                         if (d > 0 && v[0] <= table.original[d - 1])
                           throw InputError(file, line, "original ids in ascending order, each once",
                                            std::to_string(v[0]) + " after " + std::to_string(table.original[d - 1]));
                         table.original[d] = static_cast<std::uint32_t>(v[0]);
                         check_value(d, v[1], line);
                       });
}

// users.txt and items.txt with the manifest's moments: the ids' originals and the statistics.
void read_listed_stats(const fs::path& dir, const Manifest& m, IdTables& ids, RatingsStats& stats) {
  const auto parts = static_cast<std::uint32_t>(m.shards.size());
  stats.users = m.users;
  stats.items = m.items;
  stats.user_part.assign(m.users, kNoPart);
  stats.item_ratings.assign(m.items, 0);
  const fs::path users = dir / kUsersName;
  read_id_lines(users, m.users, "\"original_id part\" (non-negative integers)", "user", ids.users,
                [&](std::size_t u, std::uint64_t part, std::size_t line) {
                  if (part >= parts)
                    throw InputError(users, line, "a part below " + std::to_string(parts) + kAsListed,
                                     std::to_string(part));
                  stats.user_part[u] = static_cast<std::uint32_t>(part);
                });
  std::uint64_t total = 0;
  const fs::path items = dir / kItemsName;
  read_id_lines(items, m.items, "\"original_id ratings\" (non-negative integers)", "item", ids.items,
                [&](std::size_t i, std::uint64_t ratings, std::size_t) {
                  stats.item_ratings[i] = ratings;
                  total += ratings;
                });
  if (total != m.records)
    throw InputError(items, 0, "ratings summing to " + std::to_string(m.records) + kAsListed, std::to_string(total));
  for (const ShardEntry& e : m.shards) stats.parts.push_back({e.records, e.sum, e.sum_squares});
}

// A dense shard against the statistics: only users placed in it, and the moments listed for it.
void check_shard(const fs::path& dir, const Manifest& m, std::uint32_t part, const RatingsSet& shard,
                 const IdTables& ids, const RatingsStats& stats) {
  const fs::path file = dir / m.shards[part].file;
  for (const Rating& r : shard.ratings)
    if (stats.user_part[r.user] != part)
      throw InputError(file, 0, std::string("only users placed in part ") + std::to_string(part) + " by " + kUsersName,
                       "user " + std::to_string(ids.users.original[r.user]) + " of part " +
                           std::to_string(stats.user_part[r.user]));
  const RatingsMoments listed = stats.parts[part], found = moments_of(shard);
  if (found.sum != listed.sum || found.sum_squares != listed.sum_squares)
    throw InputError(file, 0, "ratings summing to " + exact(listed.sum) + ", squares to " + exact(listed.sum_squares) + kAsListed,
                     exact(found.sum) + ", " + exact(found.sum_squares));
}

}  // namespace

void write_ratings_partition(const fs::path& dir, const std::vector<RatingsSet>& shards) {
  Manifest m;
  write_shards(dir, shards, m);
  write_manifest(dir, m);
}

void write_ratings_partition(const fs::path& dir, const std::vector<RatingsSet>& shards, const IdTables& ids) {
  const RatingsStats stats = ratings_stats(shards, ids.users.size(), ids.items.size());
  if (stats.users != ids.users.size() || stats.items != ids.items.size())
    throw std::invalid_argument("write_ratings_partition: shards beyond the id tables");
  if (stats.rated_users() != stats.users)
    throw std::invalid_argument("write_ratings_partition: a user without ratings in the id tables");
  Manifest m;
  m.dense_ids = true;
  write_shards(dir, shards, m);
  for (std::size_t p = 0; p < shards.size(); ++p) {
    m.shards[p].sum = stats.parts[p].sum;
    m.shards[p].sum_squares = stats.parts[p].sum_squares;
  }
  write_lines(dir / kUsersName, stats.users, [&](std::size_t u, std::string& line) {
    append_number(line, ids.users.original[u]);
    line.push_back(' ');
    append_number(line, stats.user_part[u]);
  });
  write_lines(dir / kItemsName, stats.items, [&](std::size_t i, std::string& line) {
    append_number(line, ids.items.original[i]);
    line.push_back(' ');
    append_number(line, stats.item_ratings[i]);
  });
  write_manifest(dir, m);
}

std::vector<RatingsSet> read_ratings_partition(const fs::path& dir) {
  const Manifest m = read_manifest(dir, "ratings");
  std::vector<RatingsSet> shards;
  shards.reserve(m.shards.size());
  for (const ShardEntry& e : m.shards) shards.push_back(read_ratings_shard(dir, m, e));
  if (!m.dense_ids) return shards;

  IdTables ids;
  RatingsStats listed;
  read_listed_stats(dir, m, ids, listed);
  for (std::uint32_t p = 0; p < shards.size(); ++p) check_shard(dir, m, p, shards[p], ids, listed);
  // Placement and moments are checked shard by shard; what is left is each item's count.
  if (ratings_stats(shards, m.users, m.items).item_ratings != listed.item_ratings)
    throw InputError(dir / kItemsName, 0, "each item's ratings in the shards", "other counts");
  const std::uint32_t users = ids.users.size() == 0 ? 0 : ids.users.original.back() + 1;
  const std::uint32_t items = ids.items.size() == 0 ? 0 : ids.items.original.back() + 1;
  for (RatingsSet& s : shards) {
    restore_ids(s, ids);
    s.users = users;
    s.items = items;
  }
  return shards;
}

std::optional<RatingsPart> read_ratings_part(const fs::path& dir, std::uint32_t part) {
  const Manifest m = read_manifest(dir, "ratings");
  if (!m.dense_ids) return std::nullopt;
  RatingsPart p;
  p.shard = read_ratings_shard(dir, m, listed_part(dir, m, part));
  read_listed_stats(dir, m, p.ids, p.stats);
  check_shard(dir, m, part, p.shard, p.ids, p.stats);
  return p;
}

}  // namespace gyre::data
