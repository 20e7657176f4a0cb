// apps/mf/input.cpp — file-or-directory training input, the test file, and their shared dense id space.
#include "mf/input.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>

#include "gyre/base/input_error.hpp"
#include "gyre/data/manifest.hpp"
#include "gyre/data/ratings_partition.hpp"
#include "mf/trainer.hpp"

namespace gyre::mf {
namespace {

// MF keeps a user's factor row with the one shard that holds the user's ratings; a user in two
// shards (partitions concatenated by hand, a damaged directory) would come out twice.
void check_users_in_one_shard(const std::filesystem::path& dir, const std::vector<data::RatingsSet>& shards,
                              std::uint32_t users) {
  constexpr auto kNone = std::numeric_limits<std::uint32_t>::max();
  std::vector<std::uint32_t> owner(users, kNone);
  for (std::uint32_t s = 0; s < shards.size(); ++s)
    for (const data::Rating& r : shards[s].ratings) {
      std::uint32_t& o = owner[r.user];
      if (o == kNone) o = s;
      if (o == s) continue;
      const auto manifest = data::read_manifest(dir, "ratings");
      throw InputError(dir / manifest.shards[s].file, 0, "each user's ratings in one shard only",
                       "a user also in " + manifest.shards[o].file);
    }
}

// Rank `rank`'s shard of a partition with dense ids, joined by the test set's ids: the id space,
// shard and statistics are those of every process and of a run that reads the whole input.
TrainingInput load_part(data::RatingsPart part, const std::filesystem::path& test, std::uint32_t rank,
                        std::uint32_t processes, std::size_t threads) {
  TrainingInput in;
  if (!test.empty()) in.test = data::read_ratings(test, threads);
  data::JoinedIds joined = data::join_ids(part.ids, in.test);
  const std::uint32_t users = joined.tables.users.size(), items = joined.tables.items.size();
  for (data::Rating& r : part.shard.ratings) {
    r.user = joined.users_from_known[r.user];
    r.item = joined.items_from_known[r.item];
  }
  const data::RatingsStats& known = part.stats;
  data::RatingsStats& stats = in.stats;
  stats.users = users;
  stats.items = items;
  stats.user_part.assign(users, data::kNoPart);
  stats.item_ratings.assign(items, 0);
  for (std::uint32_t u = 0; u < known.users; ++u) stats.user_part[joined.users_from_known[u]] = known.user_part[u];
  for (std::uint32_t i = 0; i < known.items; ++i) stats.item_ratings[joined.items_from_known[i]] = known.item_ratings[i];
  stats.parts = known.parts;
  in.ids = std::move(joined.tables);
  in.shards.resize(processes, data::RatingsSet{{}, users, items});
  part.shard.users = users;
  part.shard.items = items;
  in.shards[rank] = std::move(part.shard);
  return in;
}

}  // namespace

void check_worker_count(const std::filesystem::path& train, std::uint32_t workers, std::uint32_t rated) {
  if (workers > rated)
    throw std::invalid_argument(std::to_string(workers) + " workers but " + train.string() + " has ratings of only " +
                                std::to_string(rated) + " users: at most one worker per user");
}

TrainingInput load_input(const std::filesystem::path& train, const std::filesystem::path& test, std::uint32_t workers,
                         std::size_t threads, std::optional<std::uint32_t> rank) {
  TrainingInput in;
  // A directory with a manifest is a partition; one without, ratings files read as one.
  const bool partitioned = data::is_partition_directory(train);
  if (partitioned && rank && workers > 1 && data::read_manifest(train, "ratings").shards.size() == workers) {
    if (auto part = data::read_ratings_part(train, *rank)) {
      in = load_part(std::move(*part), test, *rank, workers, threads);
      check_worker_count(train, workers, in.stats.rated_users());
      return in;
    }
  }
  std::vector<data::RatingsSet> parts;
  if (partitioned)
    parts = data::read_ratings_partition(train);
  else
    parts.push_back(data::read_ratings_input(train, threads));
  if (!test.empty()) in.test = data::read_ratings(test, threads);

  std::vector<data::RatingsSet*> sets;
  for (auto& p : parts) sets.push_back(&p);
  sets.push_back(&in.test);
  in.ids = data::compact_ids(sets);
  if (partitioned) check_users_in_one_shard(train, parts, in.ids.users.size());

  const auto count = static_cast<std::uint32_t>(parts.size());
  if (workers == 0) workers = partitioned ? count : 1;
  if (partitioned && workers == count) {
    in.shards = std::move(parts);
  } else {
    data::RatingsSet all = std::move(parts.front());
    for (std::size_t i = 1; i < parts.size(); ++i) {
      all.ratings.insert(all.ratings.end(), parts[i].ratings.begin(), parts[i].ratings.end());
      parts[i] = {};
    }
    // One worker takes the ratings as they are, which is what a split into one part copies:
    // at 98M ratings the copy was a second gigabyte at the peak.
    if (workers == 1)
      in.shards.push_back(std::move(all));
    else
      in.shards = shard_by_user(all, workers);
    if (partitioned)
      in.note = "re-split " + std::to_string(count) + " shards of " + train.string() + " into " + std::to_string(workers);
  }
  in.stats = data::ratings_stats(in.shards, in.ids.users.size(), in.ids.items.size());
  check_worker_count(train, workers, in.stats.rated_users());
  return in;
}

}  // namespace gyre::mf
