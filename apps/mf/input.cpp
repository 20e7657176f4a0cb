// apps/mf/input.cpp — file-or-directory training input.
#include "mf/input.hpp"

#include <algorithm>

#include "gyre/data/manifest.hpp"
#include "mf/trainer.hpp"

namespace gyre::mf {

TrainingInput load_training(const std::filesystem::path& path, std::uint32_t workers) {
  TrainingInput in;
  if (!std::filesystem::is_directory(path)) {
    in.shards = shard_by_user(data::read_ratings(path), std::max(1u, workers));
    return in;
  }
  in.shards = data::read_ratings_partition(path);
  const auto parts = static_cast<std::uint32_t>(in.shards.size());
  if (workers == 0 || workers == parts) return in;
  data::RatingsSet all;
  for (auto& s : in.shards) {
    all.users = std::max(all.users, s.users);
    all.items = std::max(all.items, s.items);
    all.ratings.insert(all.ratings.end(), s.ratings.begin(), s.ratings.end());
    s = {};
  }
  in.shards = shard_by_user(all, workers);
  in.note = "re-split " + std::to_string(parts) + " shards of " + path.string() + " into " + std::to_string(workers);
  return in;
}

}  // namespace gyre::mf
