// apps/mf/input.cpp — file-or-directory training input, the test file, and their shared dense id space.
#include "mf/input.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>

#include "gyre/base/input_error.hpp"
#include "gyre/data/manifest.hpp"
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

std::uint32_t users_with_ratings(const std::vector<data::RatingsSet>& shards, std::uint32_t users) {
  std::vector<bool> rated(users, false);
  for (const auto& s : shards)
    for (const data::Rating& r : s.ratings) rated[r.user] = true;
  return static_cast<std::uint32_t>(std::count(rated.begin(), rated.end(), true));
}

}  // namespace

TrainingInput load_input(const std::filesystem::path& train, const std::filesystem::path& test, std::uint32_t workers,
                         std::size_t threads) {
  TrainingInput in;
  const bool partitioned = std::filesystem::is_directory(train);
  std::vector<data::RatingsSet> parts;
  if (partitioned)
    parts = data::read_ratings_partition(train);
  else
    parts.push_back(data::read_ratings(train, threads));
  if (!test.empty()) in.test = data::read_ratings(test, threads);

  std::vector<data::RatingsSet*> sets;
  for (auto& p : parts) sets.push_back(&p);
  sets.push_back(&in.test);
  in.ids = data::compact_ids(sets);
  if (partitioned) check_users_in_one_shard(train, parts, in.ids.users.size());

  const auto count = static_cast<std::uint32_t>(parts.size());
  if (workers == 0) workers = partitioned ? count : 1;
  const std::uint32_t rated = users_with_ratings(parts, in.ids.users.size());
  if (workers > rated)
    throw std::invalid_argument(std::to_string(workers) + " workers but " + train.string() + " has ratings of only " +
                                std::to_string(rated) + " users: at most one worker per user");
  if (partitioned && workers == count) {
    in.shards = std::move(parts);
    return in;
  }
  data::RatingsSet all = std::move(parts.front());
  for (std::size_t i = 1; i < parts.size(); ++i) {
    all.ratings.insert(all.ratings.end(), parts[i].ratings.begin(), parts[i].ratings.end());
    parts[i] = {};
  }
  in.shards = shard_by_user(all, workers);
  if (partitioned)
    in.note = "re-split " + std::to_string(count) + " shards of " + train.string() + " into " + std::to_string(workers);
  return in;
}

}  // namespace gyre::mf
